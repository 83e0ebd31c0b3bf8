// depthsort-bench: the command line, parsed by a pure function so the CPU tests can check every
// flag, size spelling and error message without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "depthsort/sort/registry.hpp"
#include "depthsort/sort/sorter.hpp"
#include "depthsort/harness/workload.hpp"

namespace depthsort::bench {

// Largest n accepted: what every sorter can be reserved for (Sorter::kMaxPairs, 2^31 - 1). A size
// above it is a usage error (exit 2), found before anything is generated.
constexpr std::uint64_t kMaxPairs = Sorter::kMaxPairs;

// One sorter with one option set: the unit a benchmark row measures.
struct SorterVariant {
  const SorterInfo* info = nullptr;
  OptionValues options;      // defaults overlaid with the --options text
  std::string options_text;  // format_options(options), "" when the sorter has no options
  bool baseline = false;     // the cub-radix run added for the ratios
};

struct BenchConfig {
  bool help = false;
  bool list = false;
  // Sorters as named on the command line, in order, without duplicates. Empty: the default
  // (every available GPU sorter), resolved at run time because it depends on the device.
  std::vector<const SorterInfo*> sorters;
  bool sorters_all = false;  // --sorters all: every available sorter, the CPU one included
  // --options NAME:text, in order; a sorter named twice is run once per option set.
  std::vector<std::pair<const SorterInfo*, OptionValues>> options;
  std::vector<std::size_t> sizes;
  std::vector<Distribution> distributions;
  int reps = 21;
  int warmup = 3;
  std::uint64_t seed = 1;
  bool check = false;
  std::string csv_path;
  std::string json_path;
  // --sequence PATH: frame sequences of a synthetic scene sorted the coherent way
  // instead of independent inputs; --frames of them per sorter and size.
  std::optional<CameraPath> sequence;
  int frames = 60;
  // --scratch: the sequence's frames in scene order every time (from scratch), the comparison
  // for the coherent order.
  bool scratch = false;
  // --fused: with --sequence, also depth-bucket's fused order of the same frames (rows
  // `depth-bucket`), beside the sorters' depth pass + sort.
  bool fused = false;
};

struct ParseResult {
  std::optional<BenchConfig> config;  // set on success
  std::string error;                  // set on failure: what was wrong and what is valid
  bool ok() const noexcept { return config.has_value(); }
};

// Parses argv[1..] (program name excluded). Sorter names and options are checked against
// `registry` (the real one by default; tests pass their own).
ParseResult parse_bench_args(std::span<const std::string_view> args,
                             std::span<const SorterInfo> registry = sorter_registry());

// A pair count as depthsort/host/count_text.hpp spells it (binary K/M/G, 2^N, digits), from 1 to
// kMaxPairs; nullopt otherwise, with the reason in *why when given.
std::optional<std::size_t> parse_size(std::string_view text, std::string* why = nullptr);
// Inverse for display (format_count): 16777216 -> "16M", 1536 -> "1536", 3072 -> "3K".
std::string format_size(std::size_t n);

// The rows to run, in order: cub-radix first (marked baseline if not asked for), then each
// requested sorter once per option set. `available` says whether a sorter can run here.
std::vector<SorterVariant> resolve_variants(const BenchConfig& config, std::span<const SorterInfo> registry,
                                            bool (*available)(const SorterInfo&));

// What one size needs, estimated before anything is generated: the host input
// (keys + values), the CPU sorter's copies and workspace, the --check reference and read-back;
// on the device the benchmark's six buffers (a sorter's own workspace is checked by its reserve()).
struct MemoryEstimate {
  std::uint64_t host_bytes = 0;
  std::uint64_t device_bytes = 0;
};
MemoryEstimate estimate_memory(std::size_t n, bool gpu_rows, bool cpu_rows, bool check);
// "" when `needed` fits in `available` (nullopt: unknown, assumed to fit), else the reason for the
// skipped rows: "about 48.0 GiB of host memory needed, 12.3 GiB available".
std::string memory_shortfall(std::uint64_t needed, std::optional<std::uint64_t> available, std::string_view where,
                             std::string_view adjective);

// The name of the baseline every row is compared with.
inline constexpr std::string_view kBaselineName = "cub-radix";

std::string usage_text();

}  // namespace depthsort::bench
