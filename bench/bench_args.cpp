// depthsort-bench: command-line parsing (pure: no CUDA calls, no output).
#include "bench_args.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "depthsort/host/count_text.hpp"
#include "depthsort/sort/errors.hpp"

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

std::optional<int> parse_int_in(std::string_view s, int lo, int hi) {
  const auto value = parse_digits(s);
  if (!value || *value < static_cast<std::uint64_t>(lo) || *value > static_cast<std::uint64_t>(hi)) return std::nullopt;
  return static_cast<int>(*value);
}

const std::string kValidSizes =
    "valid sizes: a count from 1 to 2^31 - 1 (the sorters index pairs with 32-bit integers) written as " +
    std::string(kCountSpellings);

}  // namespace

std::optional<std::size_t> parse_size(std::string_view text, std::string* why) {
  const auto n = parse_count(text, 1, kMaxPairs, why);
  if (!n) return std::nullopt;
  return static_cast<std::size_t>(*n);
}

std::string format_size(std::size_t n) { return format_count(n); }

ParseResult parse_bench_args(std::span<const std::string_view> args, std::span<const SorterInfo> registry) {
  auto fail = [](std::string message) {
    ParseResult result;
    result.error = std::move(message);
    return result;
  };
  constexpr std::string_view kFlags =
      "valid flags: --sorters --sizes --dist --reps --warmup --seed --options --csv --json --check "
      "--sequence --frames --scratch --fused --list --help";

  // Two spellings CLI11 reads differently from our documented grammar, refused before it sees
  // them: "--flag=" (CLI11 would take the next argument as the value) and "--check=1" (CLI11
  // accepts a value for a flag).
  for (const std::string_view arg : args) {
    if (!arg.starts_with("--")) continue;
    const std::size_t eq = arg.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string flag(arg.substr(0, eq));
    if (flag == "--help" || flag == "--list" || flag == "--check" || flag == "--scratch" || flag == "--fused")
      return fail(flag + " takes no value");
    constexpr std::array<std::string_view, 12> kValueFlags{"--sorters", "--sizes",  "--dist",     "--dists",
                                                           "--reps",    "--warmup", "--seed",     "--options",
                                                           "--csv",     "--json",   "--sequence", "--frames"};
    if (eq + 1 == arg.size() && std::find(kValueFlags.begin(), kValueFlags.end(), flag) != kValueFlags.end())
      return fail(flag + " needs a value (see --help)");
  }

  CLI::App app{"depthsort-bench"};
  app.set_help_flag();  // our own --help text (usage_text), not CLI11's
  app.allow_extras();   // unknown arguments are reported below, with the valid flags
  BenchConfig config;
  // Every flag that takes a value is read as text, one value per occurrence, and interpreted
  // below, so messages name the exact item that is wrong.
  std::vector<std::string> sorters, sizes, dists, options;
  std::string reps, warmup, seed, sequence, frames;
  bool help = false;
  auto list_option = [&](const std::string& names, std::vector<std::string>& out) {
    app.add_option(names, out)
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  };
  // One value each; a second occurrence is an error (below), never silently the one that wins.
  std::vector<std::pair<std::string, std::vector<std::string>>> single_values;
  single_values.reserve(7);
  auto value_option = [&](const std::string& names, std::string& out) {
    auto& [name, given] = single_values.emplace_back(names, std::vector<std::string>{});
    app.add_option_function<std::vector<std::string>>(names,
                                                      [&given, &out](const std::vector<std::string>& values) {
                                                        given = values;
                                                        out = values.back();
                                                      })
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  };
  app.add_flag("--help,-h", help);
  app.add_flag("--list", config.list);
  app.add_flag("--check", config.check);
  app.add_flag("--scratch", config.scratch);
  app.add_flag("--fused", config.fused);
  list_option("--sorters", sorters);
  list_option("--sizes", sizes);
  list_option("--dist,--dists", dists);
  list_option("--options", options);
  value_option("--reps", reps);
  value_option("--warmup", warmup);
  value_option("--seed", seed);
  value_option("--sequence", sequence);
  value_option("--frames", frames);
  value_option("--csv", config.csv_path);
  value_option("--json", config.json_path);

  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ArgumentMismatch& e) {
    // Only a missing value gets here (every option takes one, any number of times); CLI11's
    // message starts with the option's name.
    const std::string what = e.what();
    return fail(what.substr(0, what.find(':')) + " needs a value (see --help)");
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (see --help)");
  }
  if (!app.remaining().empty())
    return fail("unknown argument " + quote_for_message(app.remaining().front()) + "; " + std::string(kFlags));
  for (const auto& [name, given] : single_values) {
    if (given.size() <= 1) continue;
    std::string list;
    for (const std::string& v : given) list += (list.empty() ? "" : ", ") + quote_for_message(v);
    return fail(name + " given " + std::to_string(given.size()) + " times (" + list +
                "); it takes one value: give it once");
  }
  config.help = help;

  // "a,b,,c": an empty entry is an error, not silently dropped.
  auto items_of = [](std::string_view flag, std::string_view text, std::vector<std::string_view>& out) -> std::string {
    out.clear();
    for (std::string_view item : split(text, ',')) {
      item = trim_blanks(item);
      if (item.empty())
        return std::string(flag) + " " + quote_for_message(text) +
               ": empty entry (a comma too many, or no value); entries are separated by single commas";
      out.push_back(item);
    }
    return {};
  };
  std::vector<std::string_view> items;

  for (const std::string& text : sorters) {
    if (std::string error = items_of("--sorters", text, items); !error.empty()) return fail(error);
    for (std::string_view name : items) {
      if (name == "all") {
        config.sorters_all = true;
        continue;
      }
      const SorterInfo* info = find_sorter(name, registry);
      if (info == nullptr)
        return fail("unknown sorter " + quote_for_message(name) + "; valid sorters: " + sorter_names(registry) +
                    " (or 'all')");
      if (std::find(config.sorters.begin(), config.sorters.end(), info) == config.sorters.end())
        config.sorters.push_back(info);
    }
  }
  for (const std::string& text : sizes) {
    if (std::string error = items_of("--sizes", text, items); !error.empty()) return fail(error);
    for (std::string_view item : items) {
      std::string why;
      const auto n = parse_size(item, &why);
      if (!n) return fail("bad size " + quote_for_message(item) + " (" + why + "); " + kValidSizes);
      if (std::find(config.sizes.begin(), config.sizes.end(), *n) == config.sizes.end()) config.sizes.push_back(*n);
    }
  }
  for (const std::string& text : dists) {
    if (std::string error = items_of("--dist", text, items); !error.empty()) return fail(error);
    for (std::string_view name : items) {
      std::vector<Distribution> these;
      if (name == "all") {
        const auto all = all_distributions();
        these.assign(all.begin(), all.end());
      } else if (const auto d = parse_distribution(name)) {
        these.push_back(*d);
      } else {
        return fail("unknown distribution " + quote_for_message(name) +
                    "; valid distributions: " + distribution_names() + " (or 'all')");
      }
      for (Distribution d : these)
        if (std::find(config.distributions.begin(), config.distributions.end(), d) == config.distributions.end())
          config.distributions.push_back(d);
    }
  }
  if (app.count("--reps") > 0) {
    const auto value = parse_int_in(trim_blanks(reps), 1, 100000);
    if (!value) return fail("bad --reps " + quote_for_message(reps) + "; valid: an integer from 1 to 100000");
    config.reps = *value;
  }
  if (app.count("--warmup") > 0) {
    const auto value = parse_int_in(trim_blanks(warmup), 0, 100000);
    if (!value) return fail("bad --warmup " + quote_for_message(warmup) + "; valid: an integer from 0 to 100000");
    config.warmup = *value;
  }
  if (app.count("--seed") > 0) {
    const auto value = parse_digits(trim_blanks(seed));
    if (!value) return fail("bad --seed " + quote_for_message(seed) + "; valid: an unsigned integer");
    config.seed = *value;
  }
  if (app.count("--sequence") > 0) {
    config.sequence = parse_camera_path(trim_blanks(sequence));
    if (!config.sequence)
      return fail("unknown --sequence " + quote_for_message(sequence) + "; valid camera paths: " + camera_path_names());
    if (!dists.empty()) return fail("--sequence and --dist exclude each other: a sequence makes its own keys");
  }
  if (app.count("--frames") > 0) {
    const auto value = parse_int_in(trim_blanks(frames), 2, 100000);
    if (!value) return fail("bad --frames " + quote_for_message(frames) + "; valid: an integer from 2 to 100000");
    if (!config.sequence) return fail("--frames needs --sequence");
    config.frames = *value;
  }
  if (config.scratch && !config.sequence) return fail("--scratch needs --sequence");
  if (config.fused && !config.sequence) return fail("--fused needs --sequence");
  for (const std::string& text : options) {
    const std::size_t colon = text.find(':');
    const std::string_view name = trim_blanks(std::string_view(text).substr(0, colon));
    const SorterInfo* info = find_sorter(name, registry);
    if (info == nullptr)
      return fail("--options " + quote_for_message(text) + ": unknown sorter " + quote_for_message(name) +
                  "; expected NAME:opt=value,... with NAME one of: " + sorter_names(registry));
    const std::string_view option_text =
        colon == std::string_view::npos ? std::string_view{} : trim_blanks(std::string_view(text).substr(colon + 1));
    if (colon != std::string_view::npos) {
      if (!items_of("--options", option_text, items).empty())
        return fail("--options " + quote_for_message(text) +
                    ": empty entry (a comma too many, or nothing after ':'); write NAME:opt=value,opt=value");
    }
    try {
      config.options.emplace_back(info, parse_options(*info, option_text));
    } catch (const std::exception& e) {
      return fail("--options " + quote_for_message(text) + ": " + e.what());
    }
  }
  for (const auto& [flag, path] : {std::pair{"--csv", &config.csv_path}, std::pair{"--json", &config.json_path}})
    if (app.count(flag) > 0 && path->empty()) return fail(std::string(flag) + " needs a file name, got ''");

  if (!sorters.empty() && !config.sorters_all) {
    for (const auto& [info, values] : config.options) {
      if (std::find(config.sorters.begin(), config.sorters.end(), info) == config.sorters.end())
        return fail("--options names sorter '" + std::string(info->name) + "', which is not in --sorters");
    }
  }
  if (sizes.empty() && config.sequence)
    config.sizes = {std::size_t{1} << 22};
  else if (sizes.empty())
    config.sizes = {std::size_t{1} << 20, std::size_t{1} << 22, std::size_t{1} << 24, std::size_t{1} << 26};
  if (dists.empty()) config.distributions = {Distribution::Uniform};

  ParseResult result;
  result.config = std::move(config);
  return result;
}

MemoryEstimate estimate_memory(std::size_t n, bool gpu_rows, bool cpu_rows, bool check) {
  const std::uint64_t pair = sizeof(float) + sizeof(std::uint32_t);
  MemoryEstimate e;
  e.host_bytes = n * pair;  // the input, made once per distribution
  if (cpu_rows)
    e.host_bytes += n * pair * 2  // run_cpu's input and output copies
                    + n * 12;     // the CPU sorter's workspace (two key arrays, values)
  if (check)
    e.host_bytes += n * 8                         // the reference order and the checker's marks
                    + (gpu_rows ? n * pair : 0);  // the GPU output read back
  if (gpu_rows) e.device_bytes = n * pair * 3;    // pristine, input and output pairs
  return e;
}

std::string memory_shortfall(std::uint64_t needed, std::optional<std::uint64_t> available, std::string_view where,
                             std::string_view adjective) {
  if (!available || needed <= *available) return {};
  return "about " + byte_text(needed, ByteUnits::GiB) + " of " + std::string(where) + " memory needed, " +
         byte_text(*available, ByteUnits::GiB) + " " + std::string(adjective);
}

std::vector<SorterVariant> resolve_variants(const BenchConfig& config, std::span<const SorterInfo> registry,
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
  const SorterInfo* baseline = find_sorter(kBaselineName, registry);
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
                      suffix K/M/G: 1K = 1024, 16M = 2^24, 1G = 2^30 (binary in both programs,
                      depthsort --triangles too). At most 2^31 - 1, what the sorters index.
                      Each size is checked against host and device memory before anything is
                      generated; one that does not fit is skipped, with the estimate.
  --dist D,D,...      key distributions (default uniform; `all` = every one), of:
                      @DISTS@
  --reps R            timed repetitions per row (default 21)
  --warmup W          untimed runs before them (default 3)
  --seed S            input seed (default 1)
  --options NAME:o=v,o=v
                      options of one sorter (validated against its declared options; a bare
                      flag name means 1). Repeat it, also for the same sorter: each option set
                      becomes its own row, e.g. --options hybrid:shuffle=0 --options hybrid:shuffle=1
  --csv FILE          write the rows as CSV (columns below), rewritten after each row
  --json FILE         write the header and rows as JSON, steps included, rewritten after each row
                      Both go to a temporary file next to FILE, renamed over it when complete:
                      a reader never sees half a file and a run cut short keeps its finished
                      rows. /dev/stdout or a pipe is written once, at the end.
  --sequence PATH     frame sequences instead of --dist inputs: a mesh-like cloud of n points
                      on the demo's torus knot (n from --sizes, default 4M) seen along one of
                      the demo's camera paths (depthsort --camera-path), one of
                      @PATHS@, over --frames F frames (the orbit goes once around
                      in F frames: the frames are depthsort's with the same --frames), ordered
                      by the demo's own frame-order unit: the depth pass, listed in the order
                      the same sorter left the last frame in (as depthsort --coherent does),
                      then the sort writing its ids to the draw order. Every frame is timed
                      whole (depth + sort; the steps beside it) and checked on the GPU, untimed.
                      Frame 0 (scene order) is not counted. Rows:
                      dist `seq-PATH` (median over frames 1..F-1); for cuts also
                      `seq-cuts@cut` (the cut frames alone, every 30th, from scratch) and
                      `seq-cuts@shot` (the others). --reps is ignored; --warmup W sorts frame 0
                      W times first.
  --frames F          frames per sequence (default 60, 2..100000)
  --scratch           with --sequence: every frame's depths in scene order instead of the last
                      frame's sorted order (each frame sorted from scratch); rows `seq-PATH-scratch`
  --fused             with --sequence: also the frames ordered by depth-bucket, depthsort's fused
                      order (the depth pass inside a sample sort's first pass, the ids written
                      straight to the draw order); rows with sorter `depth-bucket`
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
scripts/tables/plot.py turns it into PNGs: /usr/bin/python3 scripts/tables/plot.py results.csv OUTDIR

Exit status: 0 done (rows that did not fit in host or device memory are reported and skipped),
1 a check failed, a sort raised an error or an output file could not be written (the message
names the file and the reason; no partial file is left), 2 bad command line (a size above the
limit, two outputs to one path, an empty entry in a list included).
Without a CUDA device only the CPU sorter can run (name it: --sorters cpu); GPU sorters are
reported as skipped and the exit status is 0.
)";
  const std::string marker = "@DISTS@";
  // The distribution names, wrapped under the flag's description column.
  std::string names;
  std::size_t line_length = 0;
  const std::string all_names = distribution_names();
  for (std::string_view name : split(all_names, ',')) {
    name = trim_blanks(name);
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
  const std::string paths_marker = "@PATHS@";
  text.replace(text.find(paths_marker), paths_marker.size(), camera_path_names());
  return text;
}

}  // namespace depthsort::bench
