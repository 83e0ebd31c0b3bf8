// depthsort-bench: command-line parsing (pure: no CUDA calls, no output).
#include "bench_args.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <exception>
#include <string>

#include "depthsort/count_text.hpp"
#include "depthsort/errors.hpp"

namespace depthsort::bench {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<int> parse_int_in(std::string_view s, int lo, int hi) {
  const auto value = parse_u64(s);
  if (!value || *value < static_cast<std::uint64_t>(lo) || *value > static_cast<std::uint64_t>(hi))
    return std::nullopt;
  return static_cast<int>(*value);
}

const SorterInfo* lookup(std::span<const SorterInfo> registry, std::string_view name) {
  for (const SorterInfo& info : registry)
    if (info.name == name) return &info;
  return nullptr;
}

std::string names_of(std::span<const SorterInfo> registry) {
  std::string out;
  for (const SorterInfo& info : registry) {
    if (!out.empty()) out += ", ";
    out += info.name;
  }
  return out;
}

const std::string kValidSizes =
    "valid sizes: a positive count up to 2^32 written as " + std::string(kCountSpellings);

}  // namespace

std::optional<std::size_t> parse_size(std::string_view text, std::string* why) {
  const auto n = parse_count(text, 1, kMaxPairs, why);
  if (!n) return std::nullopt;
  return static_cast<std::size_t>(*n);
}

std::string format_size(std::size_t n) { return format_count(n); }

ParseResult parse_bench_args(std::span<const std::string_view> args,
                             std::span<const SorterInfo> registry) {
  BenchConfig config;
  bool sorters_given = false;
  bool sizes_given = false;
  bool dists_given = false;
  auto fail = [](std::string message) {
    ParseResult result;
    result.error = std::move(message);
    return result;
  };

  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::string_view flag = arg;
    std::optional<std::string_view> inline_value;
    if (arg.starts_with("--")) {
      if (const std::size_t eq = arg.find('='); eq != std::string_view::npos) {
        flag = arg.substr(0, eq);
        inline_value = arg.substr(eq + 1);
      }
    }
    // The value of a flag that takes one: "--flag=value" or "--flag value".
    auto value = [&](std::string_view& out) -> bool {
      if (inline_value) {
        out = *inline_value;
        return true;
      }
      if (i + 1 >= args.size()) return false;
      out = args[++i];
      return true;
    };
    auto missing = [&] { return fail(std::string(flag) + " needs a value (see --help)"); };
    auto no_value_expected = [&]() -> bool { return !inline_value.has_value(); };

    if (flag == "--help" || flag == "-h") {
      if (!no_value_expected()) return fail(std::string(flag) + " takes no value");
      config.help = true;
    } else if (flag == "--list") {
      if (!no_value_expected()) return fail("--list takes no value");
      config.list = true;
    } else if (flag == "--check") {
      if (!no_value_expected()) return fail("--check takes no value");
      config.check = true;
    } else if (flag == "--sorters") {
      std::string_view text;
      if (!value(text)) return missing();
      sorters_given = true;
      for (std::string_view name : split(text, ',')) {
        name = trim(name);
        if (name == "all") {
          config.sorters_all = true;
          continue;
        }
        const SorterInfo* info = lookup(registry, name);
        if (info == nullptr)
          return fail("unknown sorter '" + std::string(name) +
                      "'; valid sorters: " + names_of(registry) + " (or 'all')");
        if (std::find(config.sorters.begin(), config.sorters.end(), info) == config.sorters.end())
          config.sorters.push_back(info);
      }
    } else if (flag == "--sizes") {
      std::string_view text;
      if (!value(text)) return missing();
      if (!sizes_given) config.sizes.clear();
      sizes_given = true;
      for (std::string_view item : split(text, ',')) {
        std::string why;
        const auto n = parse_size(item, &why);
        if (!n) return fail("bad size '" + std::string(trim(item)) + "' (" + why + "); " + kValidSizes);
        if (std::find(config.sizes.begin(), config.sizes.end(), *n) == config.sizes.end())
          config.sizes.push_back(*n);
      }
    } else if (flag == "--dist" || flag == "--dists") {
      std::string_view text;
      if (!value(text)) return missing();
      dists_given = true;
      for (std::string_view name : split(text, ',')) {
        name = trim(name);
        std::vector<Distribution> these;
        if (name == "all") {
          const auto all = all_distributions();
          these.assign(all.begin(), all.end());
        } else if (const auto d = parse_distribution(name)) {
          these.push_back(*d);
        } else {
          return fail("unknown distribution '" + std::string(name) +
                      "'; valid distributions: " + distribution_names() + " (or 'all')");
        }
        for (Distribution d : these)
          if (std::find(config.distributions.begin(), config.distributions.end(), d) ==
              config.distributions.end())
            config.distributions.push_back(d);
      }
    } else if (flag == "--reps") {
      std::string_view text;
      if (!value(text)) return missing();
      const auto reps = parse_int_in(trim(text), 1, 100000);
      if (!reps) return fail("bad --reps '" + std::string(text) + "'; valid: an integer from 1 to 100000");
      config.reps = *reps;
    } else if (flag == "--warmup") {
      std::string_view text;
      if (!value(text)) return missing();
      const auto warmup = parse_int_in(trim(text), 0, 100000);
      if (!warmup)
        return fail("bad --warmup '" + std::string(text) + "'; valid: an integer from 0 to 100000");
      config.warmup = *warmup;
    } else if (flag == "--seed") {
      std::string_view text;
      if (!value(text)) return missing();
      const auto seed = parse_u64(trim(text));
      if (!seed) return fail("bad --seed '" + std::string(text) + "'; valid: an unsigned integer");
      config.seed = *seed;
    } else if (flag == "--options") {
      std::string_view text;
      if (!value(text)) return missing();
      const std::size_t colon = text.find(':');
      const std::string_view name = trim(text.substr(0, colon));
      const SorterInfo* info = lookup(registry, name);
      if (info == nullptr)
        return fail("--options '" + std::string(text) + "': unknown sorter '" + std::string(name) +
                    "'; expected NAME:opt=value,... with NAME one of: " + names_of(registry));
      const std::string_view option_text =
          colon == std::string_view::npos ? std::string_view{} : trim(text.substr(colon + 1));
      try {
        config.options.emplace_back(info, parse_options(*info, option_text));
      } catch (const std::exception& e) {
        return fail("--options '" + std::string(text) + "': " + e.what());
      }
    } else if (flag == "--csv" || flag == "--json") {
      std::string_view text;
      if (!value(text) || text.empty()) return missing();
      (flag == "--csv" ? config.csv_path : config.json_path) = std::string(text);
    } else {
      return fail("unknown argument '" + std::string(arg) +
                  "'; valid flags: --sorters --sizes --dist --reps --warmup --seed --options "
                  "--csv --json --check --list --help");
    }
  }

  if (sorters_given && !config.sorters_all) {
    for (const auto& [info, values] : config.options) {
      if (std::find(config.sorters.begin(), config.sorters.end(), info) == config.sorters.end())
        return fail("--options names sorter '" + std::string(info->name) +
                    "', which is not in --sorters");
    }
  }
  if (!sizes_given) config.sizes = {std::size_t{1} << 20, std::size_t{1} << 22,
                                    std::size_t{1} << 24, std::size_t{1} << 26};
  if (!dists_given) config.distributions = {Distribution::Uniform};

  ParseResult result;
  result.config = std::move(config);
  return result;
}

std::vector<SorterVariant> resolve_variants(const BenchConfig& config,
                                            std::span<const SorterInfo> registry,
                                            bool (*available)(const SorterInfo&)) {
  // Which sorters, in order.
  std::vector<const SorterInfo*> chosen;
  auto add = [&](const SorterInfo* info) {
    if (std::find(chosen.begin(), chosen.end(), info) == chosen.end()) chosen.push_back(info);
  };
  if (config.sorters_all) {
    for (const SorterInfo& info : registry)
      if (available(info)) add(&info);
  }
  for (const SorterInfo* info : config.sorters) add(info);
  if (config.sorters.empty() && !config.sorters_all) {
    for (const SorterInfo& info : registry)
      if (info.backend == Backend::Gpu && available(info)) add(&info);
    for (const auto& [info, values] : config.options) add(info);  // --options implies running it
  }

  std::vector<SorterVariant> variants;
  auto push = [&](const SorterInfo* info, OptionValues values) {
    SorterVariant v;
    v.info = info;
    v.options_text = format_options(values);
    v.options = std::move(values);
    for (const SorterVariant& existing : variants)
      if (existing.info == info && existing.options == v.options) return;
    variants.push_back(std::move(v));
  };

  // The baseline first: cub-radix with its default options.
  const SorterInfo* baseline = nullptr;
  for (const SorterInfo& info : registry)
    if (info.name == kBaselineName) baseline = &info;
  if (baseline != nullptr) {
    push(baseline, default_options(*baseline));
    variants.back().baseline = true;
  }

  for (const SorterInfo* info : chosen) {
    bool has_options = false;
    for (const auto& [opt_info, values] : config.options) {
      if (opt_info != info) continue;
      has_options = true;
      push(info, values);
    }
    if (!has_options) push(info, default_options(*info));
  }
  return variants;
}

std::string usage_text() {
  std::string text = R"(depthsort-bench: time every sorter of the registry side by side with cub-radix.

Usage: depthsort-bench [flags]

  --sorters A,B,...   sorters to run (default: every available GPU sorter; name `cpu` to add the
                      CPU sorter; `all` = every available sorter). cub-radix is always run
                      first as the baseline, marked `*`, even when not listed.
  --sizes N,N,...     pair counts (default 1M,4M,16M,64M). Spellings: 1000000, 2^24, or a binary
                      suffix K/M/G: 1K = 1024, 16M = 2^24, 1G = 2^30. At most 2^32.
  --dist D,D,...      key distributions (default uniform; `all` = every one), of:
                      @DISTS@
  --reps R            timed repetitions per row (default 21)
  --warmup W          untimed runs before them (default 3)
  --seed S            input seed (default 1)
  --options NAME:o=v,o=v
                      options of one sorter (validated against its declared options; a bare
                      flag name means 1). Repeat it, also for the same sorter: each option set
                      becomes its own row, e.g. --options hybrid:shuffle=0 --options hybrid:shuffle=1
  --csv FILE          write the rows as CSV (columns below), each row as it completes
  --json FILE         write the header and rows as JSON, steps included
  --check             verify every row once more, untimed, with poisoned outputs, against the
                      CPU reference (check_sorted_pairs); a failure makes the exit status 1
  --list              print the registry (sorters, availability, options) and exit
  --help              this text

Timing: for every repetition the unsorted input is restored by a device-to-device copy, then a
pair of CUDA events brackets the sort alone (the copy is outside it). Reported: median, min and
p90 over the repetitions, throughput n / median in G pairs/s, and vs_cub = median / median of
cub-radix at the same size and distribution in this run (2.00x = twice as slow). Sorters that
report more than one step also get the median of each step. The CPU sorter is timed with the
host clock, its input restored by memcpy.

CSV columns, one row per sorter x option set x size x distribution:
  sorter, options, baseline (1 for the cub-radix reference), backend (gpu|cpu), dist, n,
  reps, median_ms, min_ms, p90_ms, gpairs_per_s, vs_cub (empty if no baseline),
  check (pass | FAIL: ... | skipped: ... | error: ... | - when not checked),
  steps ("name=ms;name=ms" medians per step, empty for single-step sorters), device
bench/plot.py turns it into PNGs: /usr/bin/python3 bench/plot.py results.csv OUTDIR

Exit status: 0 done (rows that did not fit in device memory are reported and skipped),
1 a check failed or a sort raised an error, 2 bad command line.
Without a CUDA device only the CPU sorter can run (name it: --sorters cpu); GPU sorters are
reported as skipped and the exit status is 0.
)";
  const std::string marker = "@DISTS@";
  // The distribution names, wrapped under the flag's description column.
  std::string names;
  std::size_t line_length = 0;
  const std::string all_names = distribution_names();
  for (std::string_view name : split(all_names, ',')) {
    name = trim(name);
    if (!names.empty()) {
      names += ',';
      ++line_length;
      if (line_length + name.size() + 1 > 74) {
        names += "\n                      ";
        line_length = 0;
      } else {
        names += ' ';
        ++line_length;
      }
    }
    names += name;
    line_length += name.size();
  }
  text.replace(text.find(marker), marker.size(), names);
  return text;
}

}  // namespace depthsort::bench
