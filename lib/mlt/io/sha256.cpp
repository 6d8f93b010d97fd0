#include "mlt/io/sha256.hpp"

#include <openssl/evp.h>

#include "mlt/core/error.hpp"
#include "mlt/io/hex.hpp"

namespace mlt::io {

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1)
    throw Error("cannot compute SHA-256", kExitSoftware);
  return lowercase_hex(md, len);
}

}  // namespace mlt::io
