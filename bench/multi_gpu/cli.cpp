// depthsort-multigpu's command line (depthsort's own).
#include "cli.hpp"

#include <charconv>
#include <string_view>

#include <CLI/CLI.hpp>

#include "depthsort/sort/errors.hpp"
#include "depthsort/sort/registry.hpp"
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

// "a,b,c" into its items (none empty).
std::optional<std::vector<std::string_view>> split_list(std::string_view list) {
  std::vector<std::string_view> items;
  do {
    const auto comma = list.find(',');
    items.push_back(list.substr(0, comma));
    if (items.back().empty()) return std::nullopt;
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (comma != std::string_view::npos && list.empty()) return std::nullopt;
  } while (!list.empty());
  return items;
}

}  // namespace

const char* usage() {
  return "usage: depthsort-multigpu --test [--gpus N] [--require-gpus K] [--max-test-size S]\n"
         "       depthsort-multigpu --bench [--gpus N,M,...] [--sizes 16M,64M,...] [--dist NAME] [--reps R]\n"
         "                          [--warmup W] [--csv FILE] [--check]\n"
         "       depthsort-multigpu --info\n"
         "  --gpus N,M,...    bench: the GPU counts to run, each on GPUs 0..N-1 (default: every GPU found,\n"
         "                    at most 8); test: the largest count (also tested: 1 and 2)\n"
         "  --require-gpus K  exit 77 (skipped) with fewer than K GPUs\n"
         "  --max-test-size S largest test size (default 16M)\n"
         "  --sizes           pairs in all, suffixes K, M, G (powers of two): 1M+3 is 2^20+3\n"
         "  --local-sorter NAME  every GPU's sort, any GPU sorter of the registry (default: hybrid for the\n"
         "                    paper's cases, as the paper; cub-radix, the fastest, for the distributed one)\n"
         "  --local-options O its options, \"name=value,...\"\n"
         "  --chunks K        sub-ranges per GPU, the pipeline's pieces (1..8; default: auto: pieces of 32M\n"
         "                    pairs, at most 4, in the distributed case; 64M pairs, at most 8, in the paper's);\n"
         "                    the bench also runs K = 1 rows\n"
         "  --levels L        histogram levels: 3 exact splitters (default), 1 the paper's single pass\n"
         "  --transport T     auto (default: copy engines where every pair of GPUs has peer access, else\n"
         "                    NCCL), ce (cudaMemcpyPeerAsync on the copy engines) or nccl (ncclSend/ncclRecv);\n"
         "                    the bench also runs the other one\n"
         "  --all-bits        cub-radix as the local sort sorts all 32 bits (default: only the bits each\n"
         "                    sub-range's keys may differ in)\n"
         "  --check           bench: check each output against the CPU reference (slow above 64M)\n"
         "  --info            the GPUs, their peer access and NCCL's version\n"
         "CSV columns: case,gpus,n,dist,reps,median_ms,min_ms,p90_ms,gpairs_per_s,vs_hybrid_1gpu,\n"
         "  vs_cub_radix_1gpu,local_sorter,chunks,splitters_ms,partition_ms,exchange_ms,local_sort_ms,\n"
         "  gather_ms,bytes_between_gpus,exchange_gb_per_s,nccl_same_volume_ms,nccl_gb_per_s,exchange_vs_nccl,\n"
         "  range_counts,check,transport,ce_same_volume_ms,splitter_source,candidates\n"
         "  bytes_between_gpus: every pair that crossed (the paper's case: the returns too); exchange_*: the\n"
         "  pairs sent to their ranges' GPUs; nccl_same_volume_ms: NCCL alone moving those pairs (same GPUs,\n"
         "  same counts) in one grouped call; exchange_vs_nccl = nccl_same_volume_ms / exchange_ms (the\n"
         "  time the exchange takes: the copy engines' span, or NCCL's rounds that carry the pairs out; in the\n"
         "  paper's case earlier returns ride in them the other way): 1.0 is NCCL's own rate.\n"
         "  ce_same_volume_ms: the copy engines alone moving the same pairs. check: the output\n"
         "  checked on the GPUs (every size), and against the CPU reference with --check. splitter_source:\n"
         "  what the splitter levels read (candidates: the keys inside the sample's brackets; every key).\n";
}

std::optional<Config> parse_args(int argc, char** argv, std::string& error) {
  Config c;
  CLI::App app{"depthsort-multigpu"};
  app.set_help_flag();  // our own --help text (usage), not CLI11's
  std::string dist, max_test_size, sizes, gpus, transport;
  app.add_flag("--test", c.test);
  app.add_flag("--bench", c.bench);
  app.add_flag("--info", c.info);
  app.add_flag("--check", c.check);
  app.add_flag("--help,-h", c.help);
  bool all_bits = false;
  app.add_flag("--all-bits", all_bits);
  app.add_option("--transport", transport);
  app.add_option("--gpus", gpus);
  app.add_option("--require-gpus", c.require_gpus);
  app.add_option("--reps", c.reps);
  app.add_option("--warmup", c.warmup);
  app.add_option("--chunks", c.chunks);
  app.add_option("--levels", c.levels);
  app.add_option("--local-sorter", c.local_sorter);
  app.add_option("--local-options", c.local_options);
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
  c.cut_bits = !all_bits;
  if (!transport.empty()) {
    if (transport == "auto")
      c.transport = Transport::Auto;
    else if (transport == "ce")
      c.transport = Transport::CopyEngines;
    else if (transport == "nccl")
      c.transport = Transport::Nccl;
    else {
      error = "--transport: '" + transport + "' is none of auto, ce, nccl";
      return std::nullopt;
    }
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
    const auto items = split_list(sizes);
    if (!items) {
      error = "--sizes: bad list '" + sizes + "'";
      return std::nullopt;
    }
    for (const std::string_view item : *items) {
      const auto s = parse_size(item);
      if (!s) {
        error = "--sizes: bad size '" + std::string(item) + "'";
        return std::nullopt;
      }
      c.sizes.push_back(*s);
    }
  }
  if (app.count("--gpus") > 0) {
    const auto items = split_list(gpus);
    if (!items) {
      error = "--gpus: bad list '" + gpus + "'";
      return std::nullopt;
    }
    for (const std::string_view item : *items) {
      int value = 0;
      const auto [end, failure] = std::from_chars(item.data(), item.data() + item.size(), value);
      if (failure != std::errc{} || end != item.data() + item.size() || value < 1 || value > kMaxGpus) {
        error = "--gpus: '" + std::string(item) + "' is not a GPU count 1.." + std::to_string(kMaxGpus);
        return std::nullopt;
      }
      c.gpus.push_back(value);
    }
  }
  if (c.reps < 1 || c.warmup < 0) {
    error = "--reps must be >= 1 and --warmup >= 0";
    return std::nullopt;
  }
  if (c.chunks < 0 || c.chunks > kMaxChunks) {
    error = "--chunks must be 1.." + std::to_string(kMaxChunks) + " (0: auto)";
    return std::nullopt;
  }
  if (c.levels < 1 || c.levels > kLevels) {
    error = "--levels must be 1, 2 or 3";
    return std::nullopt;
  }
  if (!c.local_options.empty() && c.local_sorter.empty()) {
    error = "--local-options needs --local-sorter";
    return std::nullopt;
  }
  if (!c.local_sorter.empty()) {
    const SorterInfo* info = find_sorter(c.local_sorter);
    if (!info || info->backend != Backend::Gpu) {
      std::string names;
      for (const SorterInfo& s : sorter_registry())
        if (s.backend == Backend::Gpu) names += (names.empty() ? "" : ", ") + std::string(s.name);
      error = "--local-sorter: '" + c.local_sorter + "' is " +
              (info ? "a CPU sorter" : "not a sorter of the registry") + "; GPU sorters: " + names;
      return std::nullopt;
    }
    try {
      (void)parse_options(*info, c.local_options);
    } catch (const OptionError& e) {
      error = std::string("--local-options: ") + e.what();
      return std::nullopt;
    }
  }
  return c;
}

}  // namespace depthsort::multi_gpu
