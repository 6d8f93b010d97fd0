// SHA-256 through OpenSSL's libcrypto: of a model file's body (its checksum). (The data's
// fingerprint in a model's provenance is io/data_hash.hpp's, for speed.)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace mlt::io {

// Incremental: update() with the bytes in order, then hex_digest() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const char* data, std::size_t n);
  // 64 lowercase hex digits.
  std::string hex_digest();

 private:
  evp_md_ctx_st* ctx_;
};

// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace mlt::io
