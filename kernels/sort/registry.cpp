// The registry table: one row per sorter. New algorithms add a row here (and nothing else).
#include "depthsort/sort/registry.hpp"

#include <array>
#include <charconv>

#include "depthsort/sort/errors.hpp"
#include "sort/baselines.hpp"
#include "sort/gpu_mms/gpu_mms_sorter.hpp"
#include "sort/bucket_sort/bucket_sort_sorter.hpp"
#include "sort/hybrid/hybrid_sorter.hpp"
#include "sort/run_bucket/run_bucket_sorter.hpp"
#include "sort/satish_radix/satish_radix_sorter.hpp"
#include "sort/satish_merge/satish_merge_sorter.hpp"

namespace depthsort {
namespace {

const std::array kSorters{
    SorterInfo{"cub-radix", "CUB (CCCL), cub::DeviceRadixSort::SortPairs",
               "library LSD radix sort (Onesweep), the baseline every ratio is taken against", Backend::Gpu, false,
               kCubRadixOptions, cuda_device_usable, make_cub_radix_sorter},
    SorterInfo{"cub-merge",
               "CUB (CCCL), cub::DeviceMergeSort::SortPairsCopy",
               "library merge sort with depthsort's key order as comparator",
               Backend::Gpu,
               false,
               {},
               cuda_device_usable,
               make_cub_merge_sorter},
    SorterInfo{"thrust",
               "Thrust (CCCL), thrust::sort_by_key",
               "library sort_by_key as CUDA's smokeParticles sample uses it (in place: input copied first)",
               Backend::Gpu,
               false,
               {},
               cuda_device_usable,
               make_thrust_sorter},
    SorterInfo{"hybrid", "Sintorn & Assarsson 2008, bucketsort + vector-mergesort (Sections 4, 5.1, 6)",
               "pivots from a sample of the keys (the paper's histogram: splitter=0) into L buckets, then "
               "float4-network mergesort of each bucket on chip",
               Backend::Gpu, false, hybrid::kHybridOptions, cuda_device_usable, hybrid::make_hybrid_sorter},
    SorterInfo{"hybrid-coherent", "Sintorn & Assarsson 2008 (as hybrid), pivots from the last frame",
               "hybrid whose pivots are the last sort's output at equal ranks (no sample sort), checked on a sample "
               "of this frame's keys; a camera cut falls back to hybrid in the same sort",
               Backend::Gpu, false, hybrid::kHybridOptions, cuda_device_usable, hybrid::make_hybrid_coherent_sorter},
    SorterInfo{"run-bucket", "depthsort, sample sort for keys in nearly their order (docs/algorithms/run-bucket.md)",
               "the last sort's splitters, each 2048-pair tile written as runs per bucket, buckets sorted on chip; "
               "keys that differ in at most 24 low bits where the bucket path does not pay (above 16M pairs, tiles "
               "spread over many buckets, no splitters yet): CUB on those bits alone, after a reduction finds them; "
               "input in no order: cub-radix, with a probe beside it. In the demo from scratch is its faster mode "
               "(coherent listing costs more than it saves)",
               Backend::Gpu, false, run_bucket::kRunBucketOptions, cuda_device_usable,
               run_bucket::make_run_bucket_sorter},
    SorterInfo{"hybrid-quick", "Sintorn & Assarsson 2008, partial quicksort + vector-mergesort (Section 5.2)",
               "log2(L) quicksort partition passes into L sublists, then the same vector-mergesort", Backend::Gpu,
               false, hybrid::kHybridQuickOptions, cuda_device_usable, hybrid::make_hybrid_quick_sorter},
    SorterInfo{"satish-radix", "Satish, Harris & Garland 2009, radix sort (Section III)",
               "LSD radix sort in b-bit digits: per pass local split sort, histogram, scan, coherent scatter",
               Backend::Gpu, true, satish_radix::kSatishRadixOptions, cuda_device_usable,
               satish_radix::make_satish_radix_sorter},
    SorterInfo{"satish-merge", "Satish, Harris & Garland 2009, merge sort (Section IV)",
               "tiles sorted by odd-even merge sort, then a merge tree split by every t-th key", Backend::Gpu, false,
               satish_merge::kSatishMergeOptions, cuda_device_usable, satish_merge::make_satish_merge_sorter},
    SorterInfo{"gpu-mms", "Karsin et al. 2018, GPU-MMS multiway mergesort (Section 5)",
               "w^2 base case, then K-way merge rounds by a minBlockHeap per warp, merges in registers", Backend::Gpu,
               false, gpu_mms::kGpuMmsOptions, cuda_device_usable, gpu_mms::make_gpu_mms_sorter},
    SorterInfo{
        "bucket-sort", "Dehne & Zaboli 2010, GPU Bucket Sort: deterministic sample sort (Section 4, Algorithm 1)",
        "sorted sublists, regular samples, s buckets of at most 2n/s, each bucket sorted (CUB block radix "
        "sort; the paper's bitonic: faithful=1)",
        Backend::Gpu, false, bucket_sort::kBucketSortOptions, cuda_device_usable, bucket_sort::make_bucket_sorter},
    SorterInfo{"cpu",
               "depthsort, host LSD radix sort (11-bit digits)",
               "the CPU path's sorter, host memory, used where no CUDA device exists",
               Backend::Cpu,
               true,
               {},
               always_available,
               make_cpu_sorter},
};

}  // namespace

std::span<const SorterInfo> sorter_registry() { return kSorters; }

const SorterInfo* find_sorter(std::string_view name, std::span<const SorterInfo> registry) {
  for (const SorterInfo& info : registry)
    if (info.name == name) return &info;
  return nullptr;
}

std::string sorter_names(std::span<const SorterInfo> registry) {
  std::string names;
  for (const SorterInfo& info : registry) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

OptionValues default_options(const SorterInfo& info) {
  OptionValues values;
  for (const OptionSpec& spec : info.options) values.emplace(std::string(spec.name), spec.default_value);
  return values;
}

namespace {

std::string option_names(const SorterInfo& info) {
  if (info.options.empty()) return "none";
  std::string names;
  for (const OptionSpec& spec : info.options) {
    if (!names.empty()) names += ", ";
    names += std::string(spec.name) + " (" + std::to_string(spec.min_value) + ".." + std::to_string(spec.max_value) +
             ", default " + std::to_string(spec.default_value) + ")";
  }
  return names;
}

}  // namespace

OptionValues parse_options(const SorterInfo& info, std::string_view text) {
  OptionValues values = default_options(info);
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (item.empty()) continue;
    const std::size_t equals = item.find('=');
    const std::string_view name = item.substr(0, equals);
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& candidate : info.options)
      if (candidate.name == name) spec = &candidate;
    if (!spec)
      throw OptionError(std::string(info.name) + ": unknown option '" + std::string(name) +
                        "'; valid options: " + option_names(info));
    int value = 1;
    if (equals != std::string_view::npos) {
      const std::string_view digits = item.substr(equals + 1);
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (error != std::errc{} || end != digits.data() + digits.size())
        throw OptionError(std::string(info.name) + ": option '" + std::string(name) + "' needs an integer, got '" +
                          std::string(digits) + "'");
    }
    if (value < spec->min_value || value > spec->max_value)
      throw OptionError(std::string(info.name) + ": option '" + std::string(name) + "' must be in " +
                        std::to_string(spec->min_value) + ".." + std::to_string(spec->max_value) + ", got " +
                        std::to_string(value));
    values[std::string(name)] = value;
  }
  return values;
}

std::string format_options(const OptionValues& values) {
  std::string text;
  for (const auto& [name, value] : values) {
    if (!text.empty()) text += ',';
    text += name + '=' + std::to_string(value);
  }
  return text;
}

std::vector<OptionValues> option_variants(const SorterInfo& info) {
  std::vector<OptionValues> variants{default_options(info)};
  for (const OptionSpec& spec : info.options) {
    if (!spec.is_flag()) continue;
    OptionValues flipped = default_options(info);
    flipped[std::string(spec.name)] = 1 - spec.default_value;
    variants.push_back(std::move(flipped));
  }
  return variants;
}

}  // namespace depthsort
