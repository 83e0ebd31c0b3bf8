// depthsort-mms-types' command line (bench/types/types_args.cpp), parsed in-process: CPU only.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "stats.hpp"
#include "types_args.hpp"

namespace depthsort::mms_types {
namespace {

TypesArgs parse(std::vector<std::string_view> args) { return parse_types_args(args); }

TEST(MmsTypesArgs, DefaultsWithoutArguments) {
  const TypesArgs a = parse({});
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.options.sizes, (std::vector<std::size_t>{1u << 20, 1u << 24}));
  EXPECT_EQ(a.options.ks, (std::vector<int>{8, 16}));
  EXPECT_EQ(a.options.reps, 9);
  EXPECT_EQ(a.options.csv, "");
  EXPECT_FALSE(a.options.help);
}

TEST(MmsTypesArgs, EveryFlagInBothSpellings) {
  for (const auto& args :
       {std::vector<std::string_view>{"--sizes", "1K,2^12", "--k", "16", "--reps", "3", "--csv", "o.csv"},
        std::vector<std::string_view>{"--sizes=1K,2^12", "--k=16", "--reps=3", "--csv=o.csv"}}) {
    const TypesArgs a = parse(args);
    ASSERT_EQ(a.error, "");
    EXPECT_EQ(a.options.sizes, (std::vector<std::size_t>{1024, 4096}));
    EXPECT_EQ(a.options.ks, std::vector<int>{16});
    EXPECT_EQ(a.options.reps, 3);
    EXPECT_EQ(a.options.csv, "o.csv");
  }
  EXPECT_EQ(parse({"--reps", "3", "--reps", "5"}).options.reps, 5) << "the last occurrence counts";
  EXPECT_TRUE(parse({"--help"}).options.help);
  EXPECT_TRUE(parse({"-h"}).options.help);
  EXPECT_TRUE(parse({"--help", "--sizes", "0"}).options.help) << "--help answers before values are read";
}

TEST(MmsTypesArgs, UsageErrorsNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string_view>, std::string>> cases{
      {{"--bogus"}, "unknown flag '--bogus'"},
      {{"stray"}, "unexpected argument 'stray'"},
      {{"--reps", "3", "--csv"}, "--csv needs a value"},
      {{"--sizes"}, "--sizes needs a value"},
      {{"--sizes="}, "--sizes needs a value"},
      {{"--csv="}, "--csv needs a file name"},
      {{"--csv", ""}, "--csv needs a file name"},
      {{"--sizes", "1M,1X"}, "--sizes: '1X': not a count"},
      {{"--sizes", "1K,,2K"}, "--sizes: '': empty"},
      {{"--sizes", "2G"}, "--sizes: '2G': above the limit 1G"},
      {{"--reps", "0"}, "--reps: '0': below the minimum 1"},
      {{"--reps", "1001"}, "--reps: '1001': above the limit 1000"},
      {{"--k", "4"}, "--k: 4: 8 or 16"},
      {{"--help=no"}, "--help takes no value"},
  };
  for (const auto& [args, expected] : cases) {
    const TypesArgs a = parse(args);
    EXPECT_NE(a.error.find(expected), std::string::npos) << "got '" << a.error << "', expected '" << expected << "'";
  }
}

// The reported time is bench::summarize's median, the benchmark's: the middle value, the mean of
// the two middle values for an even count (the program's own median once took the upper one).
TEST(MmsTypesArgs, MedianIsTheBenchmarks) {
  EXPECT_DOUBLE_EQ(bench::summarize({3.0, 1.0, 2.0}).median, 2.0);
  EXPECT_DOUBLE_EQ(bench::summarize({4.0, 1.0, 3.0, 2.0}).median, 2.5);
}

}  // namespace
}  // namespace depthsort::mms_types
