// The data's fingerprint in a model's provenance (`data_xxh128`): XXH3's 128-bit hash
// (libxxhash) of the input's bytes, as `xxhsum -H2 FILE` prints it, so a user can
// check which file a model was fitted on.
//
// Why not SHA-256 (older models carry `data_sha256`, and still load): SHA-256 is
// sequential and runs at about 1.2 GB/s on one core with the SHA instructions, so no
// read of a file could finish faster than that, and on two cores it takes a share of
// them from the parse; XXH3-128 runs at about 6 GB/s (scripts/bench read times both). The fingerprint guards against fitting on one file
// and believing it another; a model file is not signed (its own checksum can be
// recomputed by anyone who edits it), so a cryptographic hash guaranteed nothing more.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

struct XXH3_state_s;

namespace mlt::io {

// Incremental: update() with the bytes in order, then hex_digest() once.
class DataHash {
 public:
  DataHash();
  ~DataHash();
  DataHash(const DataHash&) = delete;
  DataHash& operator=(const DataHash&) = delete;
  void update(const char* data, std::size_t n);
  // 32 lowercase hex digits, the canonical (big-endian) form xxhsum prints.
  std::string hex_digest() const;

 private:
  XXH3_state_s* state_;
};

// The hash of `data` as 32 lowercase hex digits.
std::string data_hash_hex(std::string_view data);

}  // namespace mlt::io
