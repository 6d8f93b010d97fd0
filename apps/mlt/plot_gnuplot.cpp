#include "plot_gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>
#include <vector>

#include "cli_support.hpp"
#include "mlt/io/file.hpp"
#include "mlt/io/number_format.hpp"

extern char** environ;

namespace mlt::app {
namespace {

constexpr unsigned kMaxPixels = 20000;  // a side; a typo beyond, not a picture
constexpr unsigned kMaxChars = 1000;

// "800x600" -> 800, 600; UsageError naming the flag otherwise.
void parse_size(const std::string& s, unsigned max, unsigned& w, unsigned& h) {
  const auto x = s.find('x');
  const auto whole = [&](std::string_view part, unsigned& v) {
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), v);
    return !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos && error == std::errc() &&
           end == part.data() + part.size() && v >= 1 && v <= max;
  };
  if (x == std::string::npos || !whole(std::string_view(s).substr(0, x), w) ||
      !whole(std::string_view(s).substr(x + 1), h))
    throw UsageError("--size must be WIDTHxHEIGHT, two whole numbers from 1 to " + std::to_string(max) + ", got \"" +
                     s + "\"");
}

std::string extension_format(const std::string& path) {
  const auto dot = path.rfind('.');
  const auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "png" || ext == "svg" || ext == "pdf" || ext == "txt") return ext;
  return "";
}

// An anonymous temporary file (unlinked at once, so nothing is left behind whatever
// happens to mlt), open for reading and writing.
int anonymous_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/mlt-plot-XXXXXX";
  const int fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) throw OutputError("cannot create a temporary file in " + path.substr(0, path.rfind('/')) + ": " +
                                std::strerror(errno));
  unlink(path.c_str());
  return fd;
}

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError(std::string("writing the gnuplot script: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  lseek(fd, 0, SEEK_SET);
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, static_cast<std::size_t>(n));
  }
  return s;
}

// Runs gnuplot on `script`; its standard output goes to `out`. Its messages are
// passed on (warnings) or become the error (a failure: a bug in the script mlt wrote).
void run_gnuplot(const std::string& script, io::OutputFile& out) {
  struct Fd {
    int fd = -1;
    ~Fd() {
      if (fd >= 0) close(fd);
    }
  };
  Fd in{anonymous_file()}, err{anonymous_file()};
  write_all(in.fd, script);
  lseek(in.fd, 0, SEEK_SET);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw IoError(std::string("cannot create a pipe: ") + std::strerror(errno));
  Fd read_end{pipe_fds[0]}, write_end{pipe_fds[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd, 2);
  // -d: no initialization file (~/.gnuplot), so the picture is the script's alone.
  char arg0[] = "gnuplot", arg1[] = "-d";
  char* argv[] = {arg0, arg1, nullptr};
  // mlt ignores SIGPIPE (its writes report EPIPE instead); gnuplot gets the default.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &pipe_signal);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "gnuplot", &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned == ENOENT)
    throw UnavailableError(
        "gnuplot is not installed (not found on PATH); install it (Debian: apt-get install gnuplot-nox), or use "
        "--script to get the gnuplot script");
  if (spawned != 0) throw UnavailableError(std::string("cannot run gnuplot: ") + std::strerror(spawned));
  close(write_end.fd);
  write_end.fd = -1;

  std::string chunk(1 << 16, '\0');
  std::size_t written = 0;
  try {
    for (;;) {
      const ssize_t n = ::read(read_end.fd, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw IoError(std::string("reading gnuplot's output: ") + std::strerror(errno));
      if (n == 0) break;
      out.write(std::string_view(chunk.data(), static_cast<std::size_t>(n)));
      written += static_cast<std::size_t>(n);
    }
  } catch (...) {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    throw;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string messages = read_all(err.fd);
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    // gnuplot names the failing line of the script: the first non-blank lines say it.
    std::string said;
    std::size_t lines = 0, at = 0;
    while (at < messages.size() && lines < 3) {
      const auto end = messages.find('\n', at);
      std::string line = messages.substr(at, end == std::string::npos ? std::string::npos : end - at);
      at = end == std::string::npos ? messages.size() : end + 1;
      if (line.find_first_not_of(" \t^") == std::string::npos) continue;
      said += (said.empty() ? "" : " / ") + line.substr(line.find_first_not_of(' '));
      ++lines;
    }
    throw Error("gnuplot failed (" +
                    (WIFEXITED(status) ? "status " + std::to_string(WEXITSTATUS(status))
                                       : "signal " + std::to_string(WTERMSIG(status))) +
                    ")" + (said.empty() ? "" : ": " + said) + "; mlt plot ... --script shows the script",
                kExitSoftware);
  }
  if (written == 0) throw Error("gnuplot drew nothing; mlt plot ... --script shows the script", kExitSoftware);
  std::size_t at = 0;
  while (at < messages.size()) {
    const auto end = messages.find('\n', at);
    const std::string line = messages.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? messages.size() : end + 1;
    if (line.find_first_not_of(' ') != std::string::npos) note("gnuplot: " + line.substr(line.find_first_not_of(' ')));
  }
}

}  // namespace

void add_plot_output_options(CLI::App* cmd, PlotOutputOptions& opt) {
  cmd->add_option("-o,--output", opt.output,
                  "Picture to write: .png, .svg, .pdf (or .txt, a text chart); default: a text chart on the "
                  "terminal");
  cmd->add_option("--format", opt.format, "The format, whatever -o's name (needed to write to a pipe)")
      ->check(CLI::IsMember({"png", "svg", "pdf", "txt"}));
  cmd->add_option("--size", opt.size,
                  "WIDTHxHEIGHT: pixels for png and svg (default 800x600), points for pdf, characters for a text "
                  "chart (default: the terminal's)");
  cmd->add_option("--title", opt.title, "The title above the plot (default: what is drawn, from what)");
  cmd->add_flag("--script", opt.script,
                "Print the gnuplot script (data inline) instead of running it: gnuplot SCRIPT draws the plot");
}

std::string gp_quote(const std::string& s) {
  // Single quotes: gnuplot expands backquotes (a shell command) and `@name` (a macro)
  // in double-quoted strings and on the command line, never inside single quotes,
  // where the only sequence that means anything is '' (one quote). A control
  // character would end the command or the line, so it becomes a space.
  std::string q = "'";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      q += ' ';
    else if (c == '\'')
      q += "''";
    else
      q += c;
  }
  return q + "'";
}

void require_inert(const std::string& script) {
  // Outside datablocks (numbers only) and single-quoted strings, a script mlt writes
  // holds no backquote, no `@`, no `!` command and none of the words that run or read
  // something (system, shell, load, call, pipe): each is a way for gnuplot to run a
  // command or expand text. The double-quoted strings are mlt's own constants (colours,
  // sprintf formats) and never hold a backquote, an `@` or a backslash.
  static const std::set<std::string, std::less<>> kForbidden = {"system", "shell", "load", "call", "pipe"};
  const auto refuse = [](std::string_view what, const char* where) {
    throw Error("internal error: the gnuplot script holds " + std::string(what) + where, kExitSoftware);
  };
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::size_t i = 0;
  std::string block_end;  // the datablock's terminator while inside one
  while (i < script.size()) {
    const auto eol = std::min(script.find('\n', i), script.size());
    const std::string_view line(script.data() + i, eol - i);
    i = eol + 1;
    if (!block_end.empty()) {
      if (line == block_end) block_end.clear();
      continue;
    }
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == '!') refuse("'!'", " starting a command");
    char quote = 0;
    for (std::size_t k = 0; k < line.size(); ++k) {
      const char c = line[k];
      if (quote == '\'') {
        if (c == '\'') quote = 0;  // '' reopens at once: the same string
        continue;
      }
      if (quote == '"') {
        if (c == '`' || c == '@' || c == '\\') refuse("'" + std::string(1, c) + "'", " in a double-quoted string");
        if (c == '"') quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '`' || c == '@') {
        refuse("'" + std::string(1, c) + "'", " outside a string");
      } else if (word_char(c) && (k == 0 || !word_char(line[k - 1]))) {
        std::size_t end = k;
        while (end < line.size() && word_char(line[end])) ++end;
        if (kForbidden.count(line.substr(k, end - k))) refuse("'" + std::string(line.substr(k, end - k)) + "'", "");
      } else if (c == '<' && line.substr(k, 3) == "<< ") {
        block_end = std::string(line.substr(k + 3));
      }
    }
    if (quote != 0) refuse("a string", " that runs past the end of its line");
  }
}

std::string gp_number(double v) {
  std::string s;
  io::append_number(s, v);
  return s;
}

std::string series_colour(std::size_t i) {
  static const char* const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kColours[i % 10];
}

std::string series_tint(std::size_t i) {
  // 30 % of the colour on white: light enough for points of the colour to stand out.
  const std::string c = series_colour(i);
  char out[8];
  unsigned v[3];
  for (int k = 0; k < 3; ++k) v[k] = static_cast<unsigned>(std::stoul(c.substr(1 + 2 * k, 2), nullptr, 16));
  std::snprintf(out, sizeof out, "#%02x%02x%02x", 255 - (255 - v[0]) * 3 / 10, 255 - (255 - v[1]) * 3 / 10,
                255 - (255 - v[2]) * 3 / 10);
  return out;
}

PlotTarget::PlotTarget(const PlotOutputOptions& opt) : opt_(opt) {
  const std::string from_name = opt.output.empty() || opt.output == "-" ? "" : extension_format(opt.output);
  if (!opt.format.empty() && !from_name.empty() && opt.format != from_name)
    throw UsageError("--format " + opt.format + " does not match the name " + opt.output);
  format_ = !opt.format.empty() ? opt.format : from_name;
  const bool to_stdout = opt.output.empty() || opt.output == "-";
  if (format_.empty()) {
    if (!to_stdout)
      throw UsageError("cannot tell the format of " + opt.output + ": name it .png, .svg, .pdf or .txt, or give --format");
    if (!isatty(STDOUT_FILENO) && !opt.script)
      throw UsageError("standard output is not a terminal: give -o FILE.png (or .svg, .pdf), or --format png|svg|pdf|txt "
                       "to write that format to standard output");
    format_ = "txt";
  }
  if (text()) {
    width_ = 80;
    height_ = 25;
    winsize ws{};
    if (to_stdout && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 &&
        ws.ws_row >= 10) {
      width_ = ws.ws_col;
      height_ = ws.ws_row - 1;  // the prompt's line
      const char* term = std::getenv("TERM");
      colour_ = !std::getenv("NO_COLOR") && !(term && std::string(term) == "dumb");
    }
    if (!opt.size.empty()) parse_size(opt.size, kMaxChars, width_, height_);
  } else {
    width_ = 800;
    height_ = 600;
    if (!opt.size.empty()) parse_size(opt.size, kMaxPixels, width_, height_);
  }
}

std::string PlotTarget::terminal() const {
  const std::string size = std::to_string(width_) + "," + std::to_string(height_);
  // noenhanced: column and class names are shown as written ("sepal_length" would
  // otherwise subscript its "l").
  if (format_ == "png") return "set terminal pngcairo size " + size + " noenhanced font \"sans,10\"\n";
  if (format_ == "svg") return "set terminal svg size " + size + " noenhanced font \"sans,10\" background \"white\"\n";
  if (format_ == "pdf") {
    // pdfcairo takes inches; the page is then width x height points (1/72 inch).
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.6fin,%.6fin", width_ / 72.0, height_ / 72.0);
    return std::string("set terminal pdfcairo size ") + buf + " noenhanced font \"sans,8\"\n";
  }
  return "set terminal dumb size " + size + " noenhanced" + (colour_ ? " ansi" : " mono") + "\n";
}

void PlotTarget::render(const std::string& body, const std::string& title) const {
  const std::string heading = opt_.title.empty() ? title : opt_.title;
  const std::string setup = terminal() + "set title " + gp_quote(heading) + "\n";
  if (opt_.script) {
    const bool to_stdout = opt_.output.empty() || opt_.output == "-";
    // gnuplot pipes its output into a command when the name starts with '|': a file of
    // that name is written as ./|name.
    const std::string name = !opt_.output.empty() && opt_.output[0] == '|' ? "./" + opt_.output : opt_.output;
    const std::string script =
        setup + (to_stdout ? std::string("set output\n") : "set output " + gp_quote(name) + "\n") + body;
    require_inert(script);
    io::OutputFile out("-");
    // The comment line is gnuplot's too: a newline in the title must not end it.
    out.write("# " + gp_quote(heading) + " (mlt plot; run: gnuplot THIS_FILE)\n" + script);
    out.commit();
    return;
  }
  // The output is opened first: an unwritable place fails before gnuplot runs.
  io::OutputFile out(opt_.output.empty() ? "-" : opt_.output);
  PhaseTimer timer("gnuplot");
  const std::string script = setup + "set output\n" + body;
  require_inert(script);
  run_gnuplot(script, out);
  out.commit();
}

}  // namespace mlt::app
