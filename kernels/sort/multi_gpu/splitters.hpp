// Sintorn & Assarsson, "Fast Parallel GPU-Sorting Using a Hybrid Algorithm" (JPDC 2008), Section 6.1
// "Parallelizing using dual graphics cards", on N GPUs: the N-1 pivots that cut the input into one
// key range per GPU, chosen from a histogram of the keys and recursively refined (Section 5.1:
// "the pivots can be recursively refined") until each splitter is an exact key and rank. Beside
// them, depthsort's own sub-ranges: each GPU's range cut into `chunks` key ranges at quantiles of a
// sample, so that the exchange and the sorts can run as a pipeline of independent pieces whose
// sorted outputs simply follow each other (docs/algorithms/multi-gpu.md).
//
// Everything here is host or __host__ __device__ arithmetic on plain structs: the GPU's splitter
// kernels (one thread of one block) call the same functions on the same SplitState that the CPU
// tests drive (tests/cpu/test_multi_gpu_splitters.cpp), so the tests check the device's logic.
//
// Keys are the ordered uint32 of keys.hpp. The histogram levels read 12, then 10, then 10 bits of
// the ordered key (radix bins: every key has a bin, whatever its value). After level 0 the
// splitter's rank lies in one bin; level 1 histograms only the keys of that bin (per splitter), and
// level 2 the keys of its sub-bin, which gives the exact key K at the target rank t and the number
// of keys below it. Keys equal to K are split by a tie rank g (0 .. equal-1, unique over all GPUs),
// so the ranges hold exactly t_{j+1} - t_j pairs whatever the input (all keys equal included).
//
// The levels need not read every key. A sample brackets each splitter's key: [lo, hi] around its
// target's place in the sorted sample, wide enough that the key at rank t lies inside but for a
// sample far off. One pass over the keys (the cut pass) counts the keys below every bracket's ends
// and every sub-range boundary, and copies the keys inside a bracket (the candidates, about 1% of
// the keys a splitter) aside. Where every target lies inside its bracket, the levels histogram the
// candidates alone, with each splitter's count of non-candidate keys below its bracket as its
// start; the ranks they find are the same as over every key. Where one does not (a sample that
// missed, or more candidates than their buffer holds), the levels read every key, as without a
// bracket: the result is exact either way, only its cost differs.
//
// The parts: splitter_state.hpp (limits, the structs, range lookup), splitter_levels.hpp (the
// sample, the cuts and the histogram levels), splitter_counts.hpp (the ranges' counts and
// layout), splitter_plan.hpp (host only: the plan of one sort).
#pragma once

#include "sort/multi_gpu/splitter_counts.hpp"
#include "sort/multi_gpu/splitter_levels.hpp"
#include "sort/multi_gpu/splitter_plan.hpp"
#include "sort/multi_gpu/splitter_state.hpp"
