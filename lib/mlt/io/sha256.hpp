// SHA-256 through OpenSSL's libcrypto: a model file's checksum, over its body. (The
// data's fingerprint in a model's provenance is io/data_hash.hpp's, for speed.)
#pragma once

#include <string>
#include <string_view>

namespace mlt::io {

// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace mlt::io
