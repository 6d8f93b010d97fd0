#include "mlt/io/data_hash.hpp"

#include <xxhash.h>

#include "mlt/core/error.hpp"
#include "mlt/io/hex.hpp"

namespace mlt::io {

DataHash::DataHash() : state_(XXH3_createState()) {
  if (!state_ || XXH3_128bits_reset(state_) != XXH_OK) {
    XXH3_freeState(state_);
    throw Error("cannot initialise the data hash", kExitSoftware);
  }
}

DataHash::~DataHash() { XXH3_freeState(state_); }

void DataHash::update(const char* data, std::size_t n) { XXH3_128bits_update(state_, data, n); }

std::string DataHash::hex_digest() const {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state_));
  return lowercase_hex(canonical.digest, sizeof canonical.digest);
}

std::string data_hash_hex(std::string_view data) {
  DataHash hash;
  hash.update(data.data(), data.size());
  return hash.hex_digest();
}

}  // namespace mlt::io
