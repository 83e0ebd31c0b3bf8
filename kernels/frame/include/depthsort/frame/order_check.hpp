// The order checks of a frame (the demo's correctness light, the benchmark's sequences, the
// tests): every position in key order and carrying its own key, and every id there once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "depthsort/sort/keys.hpp"  // DEPTHSORT_HD

namespace depthsort {

// Whether position i of a sorted order of n is wrong: its key comes after the next position's, or
// its id is not below id_count or does not carry its own key (key_of_id[id], bitwise). The GPU's
// order check (launch_check_sorted) and the CPU path's count exactly this.
DEPTHSORT_HD bool sorted_position_wrong(const float* key_of_id, std::size_t id_count, const float* keys_out,
                                        const std::uint32_t* values_out, std::size_t n, std::size_t i) {
  const std::uint32_t key = ordered_key(keys_out[i]);
  if (i + 1 < n && ordered_key(keys_out[i + 1]) < key) return true;
  const std::uint32_t v = values_out[i];
  return v >= id_count || ordered_key(key_of_id[v]) != key;
}

// The correctness light: adds to *bad_count the number of positions i < n where keys_out[i+1]
// comes before keys_out[i] in the key order, or where values_out[i] is not below id_count or
// does not carry its own key (key_of_id[values_out[i]] != keys_out[i], bitwise). With the input
// in id order, key_of_id is keys_in. *bad_count must be zeroed first.
void launch_check_sorted(const float* key_of_id, std::size_t id_count, const float* keys_out,
                         const std::uint32_t* values_out, std::size_t n, unsigned int* bad_count, cudaStream_t stream);
// The same check for an order of ids alone (an order made without its keys: depth-bucket's):
// adds the positions i < n where key_of_id[order[i + 1]] comes before key_of_id[order[i]], or
// order[i] is not below id_count. Whether every id is there once is the permutation check's
// (launch_check_permutation).
void launch_check_order(const float* key_of_id, std::size_t id_count, const std::uint32_t* order, std::size_t n,
                        unsigned int* bad_count, cudaStream_t stream);

// Adds to *bad_count the ids 0..n-1 that values[0..n) does not hold exactly once (a lost or
// duplicated pair); marks (n words) is workspace, cleared here. Stream-ordered, no allocation.
void launch_check_permutation(const std::uint32_t* values, std::size_t n, std::uint32_t* marks, unsigned int* bad_count,
                              cudaStream_t stream);

}  // namespace depthsort
