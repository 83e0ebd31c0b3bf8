#include "types_args.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "depthsort/host/count_text.hpp"

namespace depthsort::mms_types {

const char* const kTypesUsage =
    "usage: depthsort-mms-types [--sizes 1M,16M] [--reps 9] [--k 8,16] [--csv FILE]\n"
    "  times gpu-mms against cub::DeviceMergeSort with the same comparator on the paper's types\n"
    "  (pairs by first key, points by l1 norm, rationals) and on a conflict-heavy input (Fig. 6).\n"
    "  Sizes: 1000000, 2^24 or binary K/M/G (16M = 2^24), up to 1G. Times: the median of --reps\n"
    "  runs after 2 warm-up runs (the mean of the middle two for an even count). Exit status: 0 done,\n"
    "  1 a check failed, no CUDA device or another error, 2 bad command line.\n";

TypesArgs parse_types_args(std::span<const std::string_view> args) {
  TypesArgs result;
  auto fail = [&](std::string message) {
    result.error = std::move(message);
    return result;
  };
  constexpr std::string_view kValueFlags[] = {"--sizes", "--k", "--reps", "--csv"};
  // "--csv=" hands CLI11 an empty value, which it would take; an empty value is no value.
  for (const std::string_view arg : args) {
    if (arg.starts_with("--help=")) return fail("--help takes no value");  // CLI11 would read "--help=no"
    const std::size_t eq = arg.find('=');
    if (!arg.starts_with("--") || eq == std::string_view::npos || eq + 1 != arg.size()) continue;
    for (const std::string_view flag : kValueFlags)
      if (arg.substr(0, eq) == flag)
        return fail(std::string(flag) + (flag == "--csv" ? " needs a file name" : " needs a value"));
  }

  CLI::App app{"depthsort-mms-types"};
  app.set_help_flag();  // kTypesUsage, not CLI11's text
  app.allow_extras();   // unknown arguments are reported below, naming the first
  std::string sizes, ks, reps, csv;
  bool help = false;
  app.add_flag("--help,-h", help);
  for (const auto& [name, out] :
       {std::pair{"--sizes", &sizes}, std::pair{"--k", &ks}, std::pair{"--reps", &reps}, std::pair{"--csv", &csv}})
    app.add_option(name, *out)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ArgumentMismatch& e) {
    // Only a missing value gets here; CLI11's message starts with the option's name.
    const std::string what = e.what();
    return fail(what.substr(0, what.find(':')) + " needs a value");
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }
  if (const std::vector<std::string> unknown = app.remaining(); !unknown.empty()) {  // a copy, not a view
    const std::string& first = unknown.front();
    return fail((first.starts_with("-") ? "unknown flag " : "unexpected argument ") + quote_for_message(first));
  }
  result.options.help = help;
  if (help) return result;

  std::string error;
  const auto count = [&](const char* flag, std::string_view text, std::uint64_t min, std::uint64_t max) {
    std::string why;
    const auto value = parse_count(text, min, max, &why);
    if (!value && error.empty()) error = std::string(flag) + ": " + quote_for_message(text) + ": " + why;
    return value.value_or(min);
  };
  // "a,,b": the empty entry is an error ("empty"), not silently dropped.
  const auto each_item = [](std::string_view text, auto f) {
    for (std::size_t start = 0;;) {
      const std::size_t comma = text.find(',', start);
      f(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  };
  TypesOptions& o = result.options;
  if (app.count("--sizes") > 0) {
    o.sizes.clear();
    each_item(sizes, [&](std::string_view s) { o.sizes.push_back(count("--sizes", s, 1, kMaxTypesSize)); });
  }
  if (app.count("--k") > 0) {
    o.ks.clear();
    each_item(ks, [&](std::string_view s) { o.ks.push_back(static_cast<int>(count("--k", s, 1, 64))); });
  }
  if (app.count("--reps") > 0) o.reps = static_cast<int>(count("--reps", reps, 1, kMaxTypesReps));
  if (!error.empty()) return fail(error);
  for (const int k : o.ks)
    if (k != 8 && k != 16)
      return fail("--k: " + std::to_string(k) + ": 8 or 16 (the instantiations this program carries)");
  if (app.count("--csv") > 0 && csv.empty()) return fail("--csv needs a file name");
  o.csv = csv;
  return result;
}

}  // namespace depthsort::mms_types
