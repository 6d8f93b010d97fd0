// How much memory a fit may still take, for the refusals that come before a large
// allocation (an n x n kernel matrix, a p x p scatter matrix): a clear "needs X GiB"
// with status 65 instead of an out-of-memory failure midway.
#pragma once

#include <cstddef>
#include <string>

namespace mlt {

// Bytes this process may still allocate: the system's MemAvailable, or less under an
// address-space limit (ulimit -v: the limit less the address space in use). 0 if
// unknown.
double available_memory();

// Makes the pages of [p, p + bytes) resident and writable in a few calls, one part per
// thread, before they are written. Left to themselves, the first write to each page
// (4 KiB on x86-64) traps into the kernel: 100,000 traps for a 400 MB matrix, each a
// few microseconds in a virtual machine; the kernel clears every page either way.
// Best effort: a kernel before 5.14 refuses the advice, and then the pages fault in
// as they are written. n_threads 0: one part.
void populate_for_writing(void* p, std::size_t bytes, unsigned n_threads = 1);

// "74.5 GiB", "300.0 MiB": a size for messages.
std::string human_bytes(double bytes);

}  // namespace mlt
