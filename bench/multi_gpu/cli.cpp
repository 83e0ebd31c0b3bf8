#include "cli.hpp"

#include <charconv>
#include <string_view>

#include <CLI/CLI.hpp>

#include "sort/multi_gpu/splitters.hpp"

namespace depthsort::multi_gpu {
namespace {

// A count: digits with an optional binary suffix K, M or G, plus an optional "+extra": "1M+3" is
// 2^20 + 3, sizes just past a split point.
std::optional<std::size_t> parse_size(std::string_view text) {
  std::size_t plus = 0;
  if (const auto at = text.find('+'); at != std::string_view::npos) {
    const auto extra = parse_size(text.substr(at + 1));
    if (!extra) return std::nullopt;
    plus = *extra;
    text = text.substr(0, at);
  }
  std::size_t shift = 0;
  if (!text.empty() && (text.back() == 'K' || text.back() == 'M' || text.back() == 'G')) {
    shift = text.back() == 'K' ? 10 : text.back() == 'M' ? 20 : 30;
    text.remove_suffix(1);
  }
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return (value << shift) + plus;
}

}  // namespace

const char* usage() {
  return "usage: depthsort-multigpu --test [--gpus N] [--require-gpus K] [--max-test-size S]\n"
         "       depthsort-multigpu --bench [--gpus N] [--sizes 16M,64M,...] [--dist NAME] [--reps R]\n"
         "                          [--warmup W] [--csv FILE] [--check]\n"
         "  --gpus N          use GPUs 0..N-1 (default: every GPU found, at most 8)\n"
         "  --require-gpus K  exit 77 (skipped) with fewer than K GPUs\n"
         "  --max-test-size S largest test size (default 16M)\n"
         "  --sizes           pairs in all, suffixes K, M, G (powers of two): 1M+3 is 2^20+3\n"
         "  --check           bench: check each output against the CPU reference (slow above 64M)\n"
         "CSV columns: case,gpus,n,dist,reps,median_ms,min_ms,p90_ms,gpairs_per_s,vs_hybrid_1gpu,\n"
         "  vs_cub_radix_1gpu,histogram_ms,partition_ms,exchange_ms,local_sort_ms,gather_ms,\n"
         "  bytes_between_gpus,exchange_gb_per_s,nccl_same_volume_ms,nccl_gb_per_s,exchange_vs_nccl,\n"
         "  range_counts,check\n";
}

std::optional<Config> parse_args(int argc, char** argv, std::string& error) {
  Config c;
  CLI::App app{"depthsort-multigpu"};
  app.set_help_flag();  // our own --help text (usage), not CLI11's
  std::string dist, max_test_size, sizes;
  app.add_flag("--test", c.test);
  app.add_flag("--bench", c.bench);
  app.add_flag("--check", c.check);
  app.add_flag("--help,-h", c.help);
  app.add_option("--gpus", c.gpus);
  app.add_option("--require-gpus", c.require_gpus);
  app.add_option("--reps", c.reps);
  app.add_option("--warmup", c.warmup);
  app.add_option("--csv", c.csv);
  app.add_option("--dist", dist);
  app.add_option("--max-test-size", max_test_size);
  app.add_option("--sizes", sizes);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    error = e.what();
    return std::nullopt;
  }
  if (!dist.empty()) {
    const auto d = parse_distribution(dist);
    if (!d) {
      error = "unknown distribution '" + dist + "'; valid: " + distribution_names();
      return std::nullopt;
    }
    c.dist = *d;
  }
  if (!max_test_size.empty()) {
    const auto s = parse_size(max_test_size);
    if (!s) {
      error = "--max-test-size: bad size '" + max_test_size + "'";
      return std::nullopt;
    }
    c.max_test_size = *s;
  }
  if (app.count("--sizes") > 0) {
    c.sizes.clear();
    std::string_view list = sizes;
    do {
      const auto comma = list.find(',');
      const auto s = parse_size(list.substr(0, comma));
      if (!s) {
        error = "--sizes: bad size '" + std::string(list.substr(0, comma)) + "'";
        return std::nullopt;
      }
      c.sizes.push_back(*s);
      list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    } while (!list.empty());
  }
  if (c.reps < 1 || c.warmup < 0) {
    error = "--reps must be >= 1 and --warmup >= 0";
    return std::nullopt;
  }
  if (c.gpus < 0 || c.gpus > kMaxGpus) {
    error = "--gpus must be 1.." + std::to_string(kMaxGpus);
    return std::nullopt;
  }
  return c;
}

}  // namespace depthsort::multi_gpu
