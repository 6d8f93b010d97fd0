// How much memory a fit may still take, for the refusals that come before a large
// allocation (an n x n kernel matrix, a p x p scatter matrix): a clear "needs X GiB"
// with status 65 instead of an out-of-memory failure midway.
#pragma once

#include <string>

namespace mlt {

// Bytes this process may still allocate: the system's MemAvailable, or less under an
// address-space limit (ulimit -v: the limit less the address space in use). 0 if
// unknown.
double available_memory();

// "74.5 GiB", "300.0 MiB": a size for messages.
std::string human_bytes(double bytes);

}  // namespace mlt
