// depthsort-bench's command line, statistics and output formats: CPU only, no device touched.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_args.hpp"
#include "report.hpp"
#include "stats.hpp"

namespace depthsort::bench {
namespace {

// A registry of our own, so option handling is tested whatever the real sorters declare.
bool yes(std::string*) { return true; }
bool no(std::string* why) {
  if (why) *why = "not here";
  return false;
}
std::unique_ptr<Sorter> no_factory(const OptionValues&) { return nullptr; }

constexpr std::array kHybridOptions{
    OptionSpec{"shuffle", "shuffle the input first", 1, 0, 1},
    OptionSpec{"buckets", "number of buckets", 1024, 2, 65536},
};
const std::array kFakeRegistry{
    SorterInfo{"cub-radix", "CUB", "baseline", Backend::Gpu, false, {}, yes, no_factory},
    SorterInfo{"thrust", "Thrust", "library", Backend::Gpu, false, {}, yes, no_factory},
    SorterInfo{"hybrid", "paper", "with options", Backend::Gpu, false, kHybridOptions, yes, no_factory},
    SorterInfo{"missing", "paper", "never available", Backend::Gpu, false, {}, no, no_factory},
    SorterInfo{"cpu", "host", "cpu sorter", Backend::Cpu, true, {}, yes, no_factory},
};

ParseResult parse(std::initializer_list<std::string_view> args) {
  const std::vector<std::string_view> list(args);
  return parse_bench_args(list, kFakeRegistry);
}

BenchConfig parse_ok(std::initializer_list<std::string_view> args) {
  ParseResult result = parse(args);
  EXPECT_TRUE(result.ok()) << result.error;
  return result.ok() ? *result.config : BenchConfig{};
}

bool available(const SorterInfo& info) { return info.is_available(nullptr); }

std::vector<std::string> variant_labels(const BenchConfig& config) {
  std::vector<std::string> labels;
  for (const SorterVariant& v : resolve_variants(config, kFakeRegistry, available))
    labels.push_back(std::string(v.info->name) + (v.baseline ? "*" : "") +
                     (v.options_text.empty() ? "" : "[" + v.options_text + "]"));
  return labels;
}

// ---------------------------------------------------------------------------------------------
// Sizes

TEST(BenchSizes, SuffixesAreBinary) {
  EXPECT_EQ(parse_size("1K"), 1024u);
  EXPECT_EQ(parse_size("1k"), 1024u);
  EXPECT_EQ(parse_size("1M"), std::size_t{1} << 20);
  EXPECT_EQ(parse_size("16M"), std::size_t{1} << 24);
  EXPECT_EQ(parse_size("64m"), std::size_t{1} << 26);
  EXPECT_EQ(parse_size("1G"), std::size_t{1} << 30);
  EXPECT_EQ(parse_size("2147483647"), Sorter::kMaxPairs);  // the largest n a sorter can reserve
}

// Sizes beyond what a sorter can reserve are refused by the parser (a usage error, exit 2), with
// the limit in the message, before a byte is generated.
TEST(BenchSizes, AboveTheSortersLimitIsAUsageError) {
  for (std::string_view big : {"2G", "2^31", "4G", "2^32", "2147483648"}) {
    std::string why;
    EXPECT_FALSE(parse_size(big, &why).has_value()) << big;
    EXPECT_EQ(why, "above the limit 2147483647") << big;
    const ParseResult r = parse({"--sizes", big, "--sorters", "cpu"});
    ASSERT_FALSE(r.ok()) << big;
    EXPECT_NE(r.error.find("above the limit 2147483647"), std::string::npos) << r.error;
  }
}

TEST(BenchSizes, PowersAndPlainCounts) {
  EXPECT_EQ(parse_size("2^24"), std::size_t{1} << 24);
  EXPECT_EQ(parse_size("2^0"), 1u);
  EXPECT_EQ(parse_size("10^6"), 1000000u);
  EXPECT_EQ(parse_size("1000000"), 1000000u);
  EXPECT_EQ(parse_size("1"), 1u);
  EXPECT_EQ(parse_size(" 1M "), std::size_t{1} << 20);
}

TEST(BenchSizes, MalformedOrOutOfRangeAreRejected) {
  for (std::string_view bad : {"", "M", "1X", "1.5M", "-1", "0", "0K", "2^", "^24", "2^33", "1^5", "5G",
                               "99999999999999999999", "1MM", "2^24K", "abc", "1e6", "16 M"})
    EXPECT_FALSE(parse_size(bad).has_value()) << "accepted '" << bad << "'";
}

TEST(BenchSizes, FormatIsTheInverseForRoundSizes) {
  EXPECT_EQ(format_size(std::size_t{1} << 24), "16M");
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(3072), "3K");
  EXPECT_EQ(format_size(std::size_t{1} << 30), "1G");
  EXPECT_EQ(format_size(1000000), "1000000");
  EXPECT_EQ(format_size(1), "1");
  for (std::size_t n : {std::size_t{1} << 20, std::size_t{3} << 20, std::size_t{1000}})
    EXPECT_EQ(parse_size(format_size(n)), n);
}

TEST(BenchArgs, SizesListInOrderWithoutDuplicates) {
  const BenchConfig c = parse_ok({"--sizes", "1M,2^24,1K,1048576,1000000"});
  EXPECT_EQ(c.sizes, (std::vector<std::size_t>{1u << 20, 1u << 24, 1024, 1000000}));
}

TEST(BenchArgs, BadSizeExplainsTheValidSpellings) {
  const ParseResult r = parse({"--sizes", "1M,12Q"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("'12Q'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("2^24"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("16M"), std::string::npos) << r.error;
  EXPECT_FALSE(parse({"--sizes", ""}).ok());
  EXPECT_FALSE(parse({"--sizes", "1M,,2M"}).ok());
}

// Empty list entries are errors that say so, in every list flag.
TEST(BenchArgs, EmptyListEntriesAreErrors) {
  for (auto [flag, text] :
       {std::pair{"--sizes", "1M,,2M"}, std::pair{"--sizes", "1M,"}, std::pair{"--sorters", "thrust,"},
        std::pair{"--sorters", ",thrust"}, std::pair{"--sorters", ""}, std::pair{"--dist", "uniform,,zipf"},
        std::pair{"--options", "hybrid:shuffle=0,"}, std::pair{"--options", "hybrid:,shuffle=0"},
        std::pair{"--options", "hybrid:"}}) {
    const ParseResult r = parse({flag, text});
    ASSERT_FALSE(r.ok()) << flag << " " << text;
    EXPECT_NE(r.error.find("empty entry"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.rfind(flag, 0), 0u) << r.error;
  }
}

TEST(BenchArgs, EmptyOutputPathsAreErrors) {
  for (std::string_view flag : {"--csv", "--json"}) {
    const ParseResult r = parse({flag, ""});
    ASSERT_FALSE(r.ok()) << flag;
    EXPECT_EQ(r.error, std::string(flag) + " needs a file name, got ''");
  }
}

// What the user typed is echoed escaped and bounded: no terminal escape reaches the terminal, and
// a huge token does not become a huge message.
TEST(BenchArgs, EchoedArgumentsAreEscapedAndCut) {
  for (std::string_view flag : {"--sorters", "--dist", "--sizes", "--reps", "--options", "--bogus\x1b[2J"}) {
    const std::string evil = "\x1b]0;pwned\x07" + std::string(100000, 'A');
    const ParseResult r = flag.starts_with("--bogus") ? parse({std::string_view(evil)}) : parse({flag, evil});
    ASSERT_FALSE(r.ok()) << flag;
    EXPECT_EQ(r.error.find('\x1b'), std::string::npos) << flag;
    EXPECT_EQ(r.error.find('\x07'), std::string::npos) << flag;
    EXPECT_NE(r.error.find("\\x1b]0;pwned\\x07"), std::string::npos) << r.error.substr(0, 300);
    EXPECT_LT(r.error.size(), 1500u) << flag;
  }
}

TEST(BenchArgs, RepeatedValueFlagsAreErrorsAndListsAccumulate) {
  const BenchConfig c = parse_ok(
      {"--csv", "b.csv", "--sizes", "1K", "--sizes=2K", "--sorters", "thrust", "--sorters", "cpu", "--reps=4"});
  EXPECT_EQ(c.csv_path, "b.csv");
  EXPECT_EQ(c.sizes, (std::vector<std::size_t>{1024, 2048}));
  EXPECT_EQ(c.sorters.size(), 2u);
  EXPECT_EQ(c.reps, 4);
  // A second value is never silently the one that wins, also where the first is not valid.
  for (const auto& args : {std::vector<std::string_view>{"--csv", "a.csv", "--csv", "b.csv"},
                           std::vector<std::string_view>{"--reps", "3", "--reps=4"},
                           std::vector<std::string_view>{"--reps", "abc", "--reps", "4"}}) {
    const ParseResult result = parse_bench_args(args, kFakeRegistry);
    ASSERT_FALSE(result.ok()) << args[0];
    EXPECT_NE(result.error.find(std::string(args[0].substr(0, args[0].find('='))) + " given 2 times"),
              std::string::npos)
        << result.error;
  }
}

// The memory each size needs, estimated before anything is generated.
TEST(BenchMemory, EstimateCountsEveryCopyAndTheShortfallSaysBoth) {
  const std::size_t n = std::size_t{1} << 30;
  const MemoryEstimate cpu = estimate_memory(n, false, true, false);
  EXPECT_EQ(cpu.host_bytes, std::uint64_t{36} << 30);  // input 8n, copies 16n, workspace 12n
  EXPECT_EQ(cpu.device_bytes, 0u);
  const MemoryEstimate gpu = estimate_memory(n, true, false, true);
  EXPECT_EQ(gpu.device_bytes, std::uint64_t{24} << 30);
  EXPECT_EQ(gpu.host_bytes, std::uint64_t{24} << 30);  // input 8n, reference 8n, read-back 8n
  EXPECT_EQ(memory_shortfall(cpu.host_bytes, std::uint64_t{22} << 30, "host", "available"),
            "about 36.0 GiB of host memory needed, 22.0 GiB available");
  EXPECT_EQ(memory_shortfall(cpu.host_bytes, std::uint64_t{36} << 30, "host", "available"), "");
  EXPECT_EQ(memory_shortfall(cpu.host_bytes, std::nullopt, "host", "available"), "");
}

// ---------------------------------------------------------------------------------------------
// Defaults and flags

TEST(BenchArgs, Defaults) {
  const BenchConfig c = parse_ok({});
  EXPECT_FALSE(c.help);
  EXPECT_FALSE(c.list);
  EXPECT_FALSE(c.check);
  EXPECT_TRUE(c.sorters.empty());
  EXPECT_EQ(c.sizes, (std::vector<std::size_t>{1u << 20, 1u << 22, 1u << 24, 1u << 26}));
  EXPECT_EQ(c.distributions, std::vector<Distribution>{Distribution::Uniform});
  EXPECT_EQ(c.reps, 21);
  EXPECT_EQ(c.warmup, 3);
  EXPECT_TRUE(c.csv_path.empty());
  EXPECT_TRUE(c.json_path.empty());
}

TEST(BenchArgs, EveryFlagBothSpellings) {
  const BenchConfig c = parse_ok({"--sorters=thrust,cpu", "--sizes", "1K", "--dist=gaussian,zipf", "--reps", "5",
                                  "--warmup=0", "--seed", "7", "--csv", "out.csv", "--json=out.json", "--check"});
  ASSERT_EQ(c.sorters.size(), 2u);
  EXPECT_EQ(c.sorters[0]->name, "thrust");
  EXPECT_EQ(c.sorters[1]->name, "cpu");
  EXPECT_EQ(c.sizes, std::vector<std::size_t>{1024});
  EXPECT_EQ(c.distributions, (std::vector<Distribution>{Distribution::Gaussian, Distribution::Zipf}));
  EXPECT_EQ(c.reps, 5);
  EXPECT_EQ(c.warmup, 0);
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.csv_path, "out.csv");
  EXPECT_EQ(c.json_path, "out.json");
  EXPECT_TRUE(c.check);
}

TEST(BenchArgs, HelpAndList) {
  EXPECT_TRUE(parse_ok({"--help"}).help);
  EXPECT_TRUE(parse_ok({"-h"}).help);
  EXPECT_TRUE(parse_ok({"--list"}).list);
  EXPECT_NE(usage_text().find("--sorters"), std::string::npos);
  EXPECT_NE(usage_text().find(std::string(distribution_name(Distribution::Gaussian))), std::string::npos);
}

TEST(BenchArgs, UnknownFlagListsTheValidOnes) {
  for (std::string_view flag : {"--bogus", "-x", "sizes", "--size", "--bogus="}) {
    const ParseResult r = parse({flag});
    ASSERT_FALSE(r.ok()) << flag;
    EXPECT_NE(r.error.find(std::string(flag)), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("--sorters"), std::string::npos) << r.error;
  }
}

TEST(BenchArgs, MissingOrBadValues) {
  EXPECT_FALSE(parse({"--sizes"}).ok());
  EXPECT_FALSE(parse({"--reps"}).ok());
  EXPECT_FALSE(parse({"--reps", "0"}).ok());
  EXPECT_FALSE(parse({"--reps", "many"}).ok());
  EXPECT_FALSE(parse({"--warmup", "-1"}).ok());
  EXPECT_FALSE(parse({"--seed", "x"}).ok());
  EXPECT_FALSE(parse({"--csv"}).ok());
  EXPECT_FALSE(parse({"--csv="}).ok());
  EXPECT_FALSE(parse({"--check=1"}).ok());
}

// ---------------------------------------------------------------------------------------------
// Sorters and distributions

TEST(BenchArgs, UnknownSorterListsTheValidOnes) {
  const ParseResult r = parse({"--sorters", "thrust,quicksort"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("'quicksort'"), std::string::npos) << r.error;
  for (const SorterInfo& info : kFakeRegistry)
    EXPECT_NE(r.error.find(std::string(info.name)), std::string::npos) << r.error;
}

TEST(BenchArgs, RealRegistryNamesAreAccepted) {
  // The default registry argument: every real sorter parses by its own name.
  for (const SorterInfo& info : sorter_registry()) {
    const std::vector<std::string_view> args{"--sorters", info.name};
    const ParseResult r = parse_bench_args(args);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.config->sorters.at(0), &info);
  }
  const std::vector<std::string_view> bad{"--sorters", "no-such-sorter"};
  EXPECT_FALSE(parse_bench_args(bad).ok());
}

TEST(BenchArgs, UnknownDistributionListsTheValidOnes) {
  const ParseResult r = parse({"--dist", "uniform,lognormal"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("'lognormal'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(distribution_names()), std::string::npos) << r.error;
}

TEST(BenchArgs, AllDistributions) {
  const BenchConfig c = parse_ok({"--dist", "all"});
  EXPECT_EQ(c.distributions.size(), all_distributions().size());
}

// ---------------------------------------------------------------------------------------------
// Options

TEST(BenchOptions, ParsedOverTheDefaults) {
  const BenchConfig c = parse_ok({"--options", "hybrid:buckets=256"});
  ASSERT_EQ(c.options.size(), 1u);
  EXPECT_EQ(c.options[0].first->name, "hybrid");
  EXPECT_EQ(c.options[0].second.at("buckets"), 256);
  EXPECT_EQ(c.options[0].second.at("shuffle"), 1);  // default kept
}

TEST(BenchOptions, SeveralOptionsAndBareFlag) {
  const BenchConfig c = parse_ok({"--options=hybrid:shuffle=0,buckets=4096"});
  EXPECT_EQ(c.options.at(0).second.at("shuffle"), 0);
  EXPECT_EQ(c.options.at(0).second.at("buckets"), 4096);
  const BenchConfig flag = parse_ok({"--options", "hybrid:shuffle"});
  EXPECT_EQ(flag.options.at(0).second.at("shuffle"), 1);
  const BenchConfig none = parse_ok({"--options", "hybrid"});
  EXPECT_EQ(none.options.at(0).second.at("buckets"), 1024);
}

TEST(BenchOptions, BadOptionsAreUsageErrors) {
  for (std::string_view bad : {"hybrid:colour=1", "hybrid:buckets=1", "hybrid:buckets=999999", "hybrid:shuffle=yes",
                               "nosuch:shuffle=1", "thrust:shuffle=1"}) {
    const ParseResult r = parse({"--options", bad});
    EXPECT_FALSE(r.ok()) << "accepted " << bad;
    EXPECT_NE(r.error.find(std::string(bad)), std::string::npos) << r.error;
  }
  // The message names the valid options.
  const ParseResult r = parse({"--options", "hybrid:colour=1"});
  EXPECT_NE(r.error.find("buckets"), std::string::npos) << r.error;
}

TEST(BenchOptions, MustNameAListedSorter) {
  EXPECT_FALSE(parse({"--sorters", "thrust", "--options", "hybrid:shuffle=0"}).ok());
  EXPECT_TRUE(parse({"--sorters", "hybrid", "--options", "hybrid:shuffle=0"}).ok());
  EXPECT_TRUE(parse({"--sorters", "all", "--options", "hybrid:shuffle=0"}).ok());
}

// ---------------------------------------------------------------------------------------------
// Which rows run

TEST(BenchVariants, DefaultIsEveryAvailableGpuSorterWithTheBaselineFirst) {
  EXPECT_EQ(variant_labels(parse_ok({})),
            (std::vector<std::string>{"cub-radix*", "thrust", "hybrid[buckets=1024,shuffle=1]"}));
}

TEST(BenchVariants, BaselineAddedWhenNotListed) {
  EXPECT_EQ(variant_labels(parse_ok({"--sorters", "cpu"})), (std::vector<std::string>{"cub-radix*", "cpu"}));
  EXPECT_EQ(variant_labels(parse_ok({"--sorters", "thrust,cub-radix"})),
            (std::vector<std::string>{"cub-radix*", "thrust"}));
}

TEST(BenchVariants, ExplicitSortersKeptEvenIfUnavailableSoTheRunCanSayWhy) {
  EXPECT_EQ(variant_labels(parse_ok({"--sorters", "missing"})), (std::vector<std::string>{"cub-radix*", "missing"}));
}

TEST(BenchVariants, AllIncludesTheCpuSorter) {
  EXPECT_EQ(variant_labels(parse_ok({"--sorters", "all"})),
            (std::vector<std::string>{"cub-radix*", "thrust", "hybrid[buckets=1024,shuffle=1]", "cpu"}));
}

TEST(BenchVariants, OneRowPerOptionSet) {
  EXPECT_EQ(
      variant_labels(parse_ok({"--sorters", "hybrid", "--options", "hybrid:shuffle=0", "--options", "hybrid:shuffle=1",
                               "--options", "hybrid:shuffle=0"})),
      (std::vector<std::string>{"cub-radix*", "hybrid[buckets=1024,shuffle=0]", "hybrid[buckets=1024,shuffle=1]"}));
}

TEST(BenchVariants, OptionsImplyTheSorterWhenSortersAreDefault) {
  EXPECT_EQ(variant_labels(parse_ok({"--options", "cpu"})),
            (std::vector<std::string>{"cub-radix*", "thrust", "hybrid[buckets=1024,shuffle=1]", "cpu"}));
}

// ---------------------------------------------------------------------------------------------
// Statistics and formats

TEST(BenchStats, MedianMinP90) {
  const Summary odd = summarize({5, 1, 3, 2, 4});
  EXPECT_DOUBLE_EQ(odd.median, 3);
  EXPECT_DOUBLE_EQ(odd.min, 1);
  EXPECT_DOUBLE_EQ(odd.p90, 5);
  const Summary even = summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  const Summary h = summarize(hundred);
  EXPECT_DOUBLE_EQ(h.p90, 90);
  EXPECT_DOUBLE_EQ(h.median, 50.5);
  EXPECT_DOUBLE_EQ(summarize({7}).p90, 7);
  EXPECT_TRUE(std::isnan(summarize({}).median));
}

TEST(BenchReport, CsvQuotesOptionsAndKeepsOneRowPerLine) {
  RunHeader header;
  header.device = "NVIDIA H200";
  Row row;
  row.sorter = "hybrid";
  row.options = "buckets=1024,shuffle=1";
  row.dist = "uniform";
  row.n = 1u << 24;
  row.reps = 3;
  row.median_ms = 0.5;
  row.min_ms = 0.4;
  row.p90_ms = 0.6;
  row.gpairs_per_s = 33.554432;
  row.vs_cub = 1.25;
  row.check = "FAIL: value \"x\", at 3";
  row.steps = {{"bucket", 0.2}, {"merge", 0.3}};
  Row skipped;
  skipped.sorter = "cub-radix";
  skipped.baseline = true;
  skipped.dist = "uniform";
  skipped.n = 1u << 24;
  skipped.check = "skipped: out of memory";
  std::ostringstream out;
  write_csv(out, header, {row, skipped});
  const std::string csv = out.str();
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "sorter,options,baseline,backend,dist,n,reps,median_ms,min_ms,p90_ms,gpairs_per_s,"
            "vs_cub,check,steps,device");
  EXPECT_NE(csv.find("hybrid,\"buckets=1024,shuffle=1\",0,gpu,uniform,16777216,3,0.5,0.4,0.6,"
                     "33.5544,1.25,\"FAIL: value \"\"x\"\", at 3\",bucket=0.2;merge=0.3,NVIDIA H200\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("cub-radix,,1,gpu,uniform,16777216,0,,,,,,skipped: out of memory,,NVIDIA H200\n"),
            std::string::npos)
      << csv;
}

// A path with invalid UTF-8 on the command line must not make the JSON unreadable: the
// bytes are replaced by U+FFFD and the document parses.
TEST(BenchReport, JsonSurvivesInvalidUtf8) {
  RunHeader header;
  header.command = "depthsort-bench --csv '\xff\xfe.csv'";
  header.device = "bad \xc3";
  Row row;
  row.sorter = "thrust";
  row.check = "error: \x80";
  const std::string text = json_text(header, {row});
  nlohmann::json parsed;
  ASSERT_NO_THROW(parsed = nlohmann::json::parse(text)) << text;
  EXPECT_EQ(parsed["header"]["command"], "depthsort-bench --csv '\xef\xbf\xbd\xef\xbf\xbd.csv'");
  EXPECT_EQ(parsed["rows"][0]["check"], "error: \xef\xbf\xbd");
  EXPECT_EQ(json_string("\xff"), "\"\xef\xbf\xbd\"");
}

TEST(BenchReport, JsonEscapesAndUsesNullForMissingNumbers) {
  EXPECT_EQ(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
  RunHeader header;
  header.command = "depthsort-bench --sizes '1M'";
  Row row;
  row.sorter = "thrust";
  row.dist = "uniform";
  row.n = 8;
  std::ostringstream out;
  write_json(out, header, {row});
  EXPECT_NE(out.str().find("\"median_ms\": null"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\"command\": \"depthsort-bench --sizes '1M'\""), std::string::npos);
}

TEST(BenchReport, TableIsAlignedAndMarksTheBaseline) {
  Row a;
  a.sorter = "cub-radix";
  a.baseline = true;
  a.dist = "uniform";
  a.n = 1u << 20;
  a.reps = 1;
  a.median_ms = 0.088;
  a.vs_cub = 1;
  Row b = a;
  b.sorter = "a-much-longer-name";
  b.baseline = false;
  b.median_ms = 12.5;
  b.steps = {{"split", 2.5}, {"merge", 10}};
  std::ostringstream out;
  print_table(out, {a, b});
  std::istringstream lines(out.str());
  std::string header_line, rule, first, second;
  std::getline(lines, header_line);
  std::getline(lines, rule);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(first.rfind("cub-radix*", 0), 0u) << out.str();
  EXPECT_EQ(header_line.find("options"), first.find("-  ")) << out.str();
  EXPECT_EQ(header_line.find("options"), second.find("-  ")) << out.str();
  EXPECT_NE(out.str().find("steps (median ms):  split 2.500  merge 10.00"), std::string::npos) << out.str();
}

// --sequence and --frames: frame sequences of a camera path instead of --dist inputs.
TEST(BenchArgs, SequenceTakesACameraPathAndFrames) {
  const BenchConfig plain = parse_ok({});
  EXPECT_FALSE(plain.sequence.has_value());
  const BenchConfig orbit = parse_ok({"--sequence", "orbit"});
  ASSERT_TRUE(orbit.sequence.has_value());
  EXPECT_EQ(*orbit.sequence, CameraPath::Orbit);
  EXPECT_EQ(orbit.frames, 60);
  EXPECT_EQ(orbit.sizes, (std::vector<std::size_t>{std::size_t{1} << 22}));  // modest default
  const BenchConfig cuts = parse_ok({"--sequence=cuts", "--frames", "300", "--sizes", "5000000,10000000"});
  EXPECT_EQ(*cuts.sequence, CameraPath::Cuts);
  EXPECT_EQ(cuts.frames, 300);
  EXPECT_EQ(cuts.sizes.size(), 2u);
  EXPECT_EQ(*parse_ok({"--sequence", "fly-through"}).sequence, CameraPath::FlyThrough);
  EXPECT_FALSE(parse({"--sequence", "fly"}).ok());  // the demo's names only
}

TEST(BenchArgs, SequenceErrorsNameWhatIsValid) {
  const ParseResult bad_path = parse({"--sequence", "spin"});
  ASSERT_FALSE(bad_path.ok());
  EXPECT_NE(bad_path.error.find("none, orbit, fly-through, cuts"), std::string::npos) << bad_path.error;
  EXPECT_FALSE(parse({"--frames", "10"}).ok());  // frames without a sequence
  EXPECT_FALSE(parse({"--sequence", "orbit", "--frames", "1"}).ok());
  EXPECT_FALSE(parse({"--sequence", "orbit", "--frames", "ten"}).ok());
  EXPECT_FALSE(parse({"--sequence", "orbit", "--dist", "uniform"}).ok());
  EXPECT_FALSE(parse({"--sequence="}).ok());
  EXPECT_NE(usage_text().find("--sequence PATH"), std::string::npos);
  // --scratch: the same frames in scene order, the from-scratch half of the comparison.
  EXPECT_FALSE(parse_ok({"--sequence", "orbit"}).scratch);
  EXPECT_TRUE(parse_ok({"--sequence", "orbit", "--scratch"}).scratch);
  EXPECT_FALSE(parse({"--scratch"}).ok());  // scratch without a sequence
  EXPECT_FALSE(parse({"--sequence", "orbit", "--scratch=1"}).ok());
  EXPECT_NE(usage_text().find("--scratch"), std::string::npos);
  EXPECT_NE(usage_text().find("none, orbit, fly-through, cuts"), std::string::npos);
}

}  // namespace
}  // namespace depthsort::bench
