#include "mlt/io/model_file.hpp"

#include <openssl/evp.h>

#include <charconv>
#include <cmath>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"

namespace mlt::io {
namespace {

constexpr std::string_view kMagic = "mlt-model ";
constexpr std::string_view kChecksumTag = "sha256 ";

// Cursor over the verified body, one line at a time.
class Lines {
 public:
  Lines(std::string_view text, const ModelReader* owner) : text_(text), owner_(owner) {}
  bool done() const { return pos_ >= text_.size(); }
  std::string_view next() {
    if (done()) owner_->fail("truncated: ended before \"end\"");
    auto nl = text_.find('\n', pos_);
    if (nl == std::string_view::npos) owner_->fail("truncated: last line has no newline");
    std::string_view line = text_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    ++line_no_;
    return line;
  }
  std::size_t remaining() const { return text_.size() - pos_; }
  std::size_t line_no() const { return line_no_; }

 private:
  std::string_view text_;
  const ModelReader* owner_;
  std::size_t pos_ = 0;
  std::size_t line_no_ = 0;
};

bool parse_size(std::string_view s, std::uint64_t& v) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) {
    s += digits[md[i] >> 4];
    s += digits[md[i] & 15];
  }
  return s;
}

ModelWriter::ModelWriter(const std::string& kind) {
  header_["kind"] = kind;
  header_["format_version"] = kModelFormatVersion;
}

void ModelWriter::add(const std::string& name, const arma::mat& m) {
  if (!m.is_finite())
    throw Error("internal: refusing to save non-finite values in \"" + name + "\"", kExitSoftware);
  matrices_.emplace_back(name, m);
}

std::string ModelWriter::bytes() const {
  std::string out;
  out += kMagic;
  out += std::to_string(kModelFormatVersion) + "\n";
  out += header_.dump() + "\n";
  for (const auto& [name, m] : matrices_) {
    out += "matrix " + name + " " + std::to_string(m.n_rows) + " " + std::to_string(m.n_cols) + "\n";
    for (arma::uword i = 0; i < m.n_rows; ++i) {
      for (arma::uword j = 0; j < m.n_cols; ++j) {
        if (j) out += ' ';
        append_number(out, m(i, j));
      }
      out += '\n';
    }
  }
  out += "end\n";
  std::string sum = sha256_hex(out);
  out += kChecksumTag;
  out += sum;
  out += '\n';
  return out;
}

void ModelReader::fail(const std::string& message) const {
  throw ModelError(source_ + ": " + message);
}

void ModelReader::expect_kind(const std::string& kind) const {
  if (kind_ != kind) fail("model is " + kind_ + ", expected " + kind);
}

ModelReader ModelReader::parse(std::string_view bytes, const std::string& source) {
  ModelReader r;
  r.source_ = source;
  if (bytes.empty()) r.fail("empty file, not an mlt model");
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    if (kMagic.substr(0, bytes.size()) == bytes) r.fail("truncated model file");
    r.fail("not an mlt model (bad magic)");
  }
  // Version first: a newer file may differ in everything after this line.
  auto nl = bytes.find('\n');
  if (nl == std::string_view::npos) r.fail("truncated model file");
  std::uint64_t version = 0;
  if (!parse_size(bytes.substr(kMagic.size(), nl - kMagic.size()), version))
    r.fail("not an mlt model (bad format version)");
  if (version > static_cast<std::uint64_t>(kModelFormatVersion) || version == 0)
    r.fail("model format version " + std::to_string(version) + " is not supported (this mlt reads version " +
           std::to_string(kModelFormatVersion) + "); upgrade mlt");

  // Checksum: the last line, covering everything before it.
  if (bytes.back() != '\n') r.fail("truncated model file (no checksum line)");
  auto last = bytes.rfind('\n', bytes.size() - 2);
  std::string_view sum_line = bytes.substr(last + 1, bytes.size() - last - 2);
  if (sum_line.substr(0, kChecksumTag.size()) != kChecksumTag) {
    if (bytes.find(std::string("\nend\n") + std::string(kChecksumTag)) != std::string_view::npos)
      r.fail("trailing data after the checksum line");
    r.fail("truncated model file (no checksum line)");
  }
  std::string_view body = bytes.substr(0, last + 1);
  if (sum_line.size() != kChecksumTag.size() + 64) r.fail("truncated or malformed checksum line");
  if (sha256_hex(body) != sum_line.substr(kChecksumTag.size()))
    r.fail("checksum mismatch: the file is corrupted");

  Lines lines(body, &r);
  lines.next();  // magic
  try {
    r.header_ = nlohmann::json::parse(lines.next());
  } catch (const nlohmann::json::exception&) {
    r.fail("line 2: malformed header");
  }
  if (!r.header_.is_object() || !r.header_.contains("kind") || !r.header_["kind"].is_string())
    r.fail("line 2: header has no kind");
  r.kind_ = r.header_["kind"].get<std::string>();

  for (;;) {
    std::string_view line = lines.next();
    if (line == "end") break;
    const std::string where = "line " + std::to_string(lines.line_no()) + ": ";
    if (line.substr(0, 7) != "matrix ") r.fail(where + "expected \"matrix\" or \"end\"");
    line.remove_prefix(7);
    auto s1 = line.find(' ');
    auto s2 = s1 == std::string_view::npos ? s1 : line.find(' ', s1 + 1);
    std::uint64_t rows = 0, cols = 0;
    if (s2 == std::string_view::npos || !parse_size(line.substr(s1 + 1, s2 - s1 - 1), rows) ||
        !parse_size(line.substr(s2 + 1), cols))
      r.fail(where + "malformed matrix declaration");
    std::string name(line.substr(0, s1));
    // Every value takes at least two bytes ("0 " or "0\n"): a size the file cannot
    // hold is a lie, caught before allocating anything.
    if (rows != 0 && cols > lines.remaining() / 2 / rows)
      r.fail(where + "matrix " + name + " declares " + std::to_string(rows) + "x" + std::to_string(cols) +
             " values, more than the file holds");
    if (r.matrices_.count(name)) r.fail(where + "matrix " + name + " appears twice");
    arma::mat m(rows, cols);
    for (std::uint64_t i = 0; i < rows; ++i) {
      std::string_view row = lines.next();
      const char* p = row.data();
      const char* e = p + row.size();
      for (std::uint64_t j = 0; j < cols; ++j) {
        if (j) {
          if (p == e || *p != ' ') r.fail("line " + std::to_string(lines.line_no()) + ": too few values");
          ++p;
        }
        double v;
        auto [ptr, ec] = std::from_chars(p, e, v);
        if (ec != std::errc() || ptr == p)
          r.fail("line " + std::to_string(lines.line_no()) + ": malformed number");
        if (!std::isfinite(v)) r.fail("line " + std::to_string(lines.line_no()) + ": non-finite value");
        m(i, j) = v;
        p = ptr;
      }
      if (p != e) r.fail("line " + std::to_string(lines.line_no()) + ": too many values");
    }
    r.matrices_.emplace(std::move(name), std::move(m));
  }
  if (!lines.done()) r.fail("data after \"end\"");
  return r;
}

const arma::mat& ModelReader::matrix(const std::string& name, arma::uword rows, arma::uword cols) const {
  auto it = matrices_.find(name);
  if (it == matrices_.end()) fail("missing matrix " + name);
  const arma::mat& m = it->second;
  if ((rows && m.n_rows != rows) || (cols && m.n_cols != cols))
    fail("matrix " + name + " is " + std::to_string(m.n_rows) + "x" + std::to_string(m.n_cols) +
         ", expected " + (rows ? std::to_string(rows) : "any") + "x" + (cols ? std::to_string(cols) : "any"));
  return m;
}

arma::vec ModelReader::vector(const std::string& name, arma::uword size) const {
  return arma::vec(matrix(name, size, 1));
}

}  // namespace mlt::io
