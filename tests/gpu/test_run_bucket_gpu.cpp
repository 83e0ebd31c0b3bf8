// run-bucket beyond the generic suite and the coherent sequences: one instance through a chain of
// unrelated inputs (sizes from 1 to 16M, input in key order and not), each of its paths seen taken
// (the bucket path on input in nearly key order or whose tiles fall into few buckets, cub-radix on
// input that is not, buckets beyond their room sorted with the spill area, and the fall back where
// that runs out; CUB on the bits narrow keys differ in, one key value copied; the bucket path up to
// 64M pairs), every result checked against the CPU reference.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/run_bucket/sample_position.hpp"
#include "support/sort_suite.hpp"

namespace depthsort::testing {
namespace {

// The names of the last sort's steps, joined by commas.
std::string last_steps(Sorter& sorter);

// The steps of a sort on the bucket path, and of one whose plan calls the attempt off (the verdict
// reaches the host while the scatter, which returns at once, runs: none of the bucket sort's
// kernels are queued).
constexpr std::string_view kBucketPath = "plan,scatter,bucket sort";
constexpr std::string_view kCalledOff = "plan,scatter,fallback-cub";

// Each test skips, with the registry's reason, where there is no CUDA device.
class RunBucket : public ::testing::Test {
 protected:
  void SetUp() override {
    info_ = find_sorter("run-bucket");
    ASSERT_NE(info_, nullptr);
    DEPTHSORT_SKIP_WITHOUT_DEVICE(*info_);
  }
  // run-bucket with its default options but those given ("name=value,..."), reserved for n pairs.
  std::unique_ptr<Sorter> make_reserved(std::size_t n, std::string_view options = "") const {
    std::unique_ptr<Sorter> sorter = info_->create(parse_options(*info_, options));
    sorter->reserve(n);
    return sorter;
  }
  // run-bucket (span=0) after two sorts of `sorted`, the second on the bucket path: its splitters
  // are those keys at equal ranks. Null (with a failure) where a sort went wrong.
  std::unique_ptr<Sorter> with_splitters_of(const std::vector<float>& sorted) const {
    std::unique_ptr<Sorter> sorter = make_reserved(sorted.size(), "span=0");
    for (int sort = 0; sort < 2; ++sort) {
      const CheckResult result = sort_and_check(*sorter, sorted);
      if (!result.ok) {
        ADD_FAILURE() << result.message;
        return nullptr;
      }
    }
    if (last_steps(*sorter) != kBucketPath) {
      ADD_FAILURE() << "the sorted keys again took " << last_steps(*sorter);
      return nullptr;
    }
    return sorter;
  }

 private:
  const SorterInfo* info_ = nullptr;
};

// The names of the last sort's steps, joined by commas.
std::string last_steps(Sorter& sorter) {
  std::string names;
  for (const StepTime& step : sorter.timer().wait_last()) names += std::string(names.empty() ? "" : ",") + step.name;
  return names;
}

TEST_F(RunBucket, OneInstanceExactOnUnrelatedInputs) {
  const std::size_t max_n = std::size_t{16} << 20;
  const std::unique_ptr<Sorter> sorter = make_reserved(max_n);
  const std::pair<Distribution, std::size_t> chain[] = {
      {Distribution::Sorted, max_n},
      {Distribution::Uniform, 1},
      {Distribution::CameraStep, max_n - 1},
      {Distribution::Outliers, (1 << 20) + 3},
      {Distribution::NanPayloads, 4099},
      {Distribution::Reverse, max_n},
      {Distribution::AllEqual, (1 << 20) + 1},
      {Distribution::TwoClusters, 5 << 20},
      {Distribution::Specials, 12345},
      {Distribution::Mesh, 2 << 20},
      {Distribution::HalfEqual, 300001},
      {Distribution::GroundPlane, 3 << 20},
      {Distribution::Zipf, 1 << 20},
      {Distribution::NearlySorted, (4 << 20) + 1},
      {Distribution::FewUnique, 1000003},
      {Distribution::Gaussian, 7},
      {Distribution::Uniform, 0},
      {Distribution::LocalDisplace, 9 << 20},
      {Distribution::Uniform, max_n},
      {Distribution::Sorted, (1 << 18) + 5},
  };
  for (const auto& [dist, n] : chain) {
    const CheckResult result = sort_and_check(*sorter, dist, n);
    EXPECT_TRUE(result.ok) << "run-bucket, " << distribution_name(dist) << " n=" << n << ": " << result.message;
  }
}

// The bucket path and the library sort as the input's order decides, without the key span (which
// takes one key value, and narrow keys, from the bucket path).
TEST_F(RunBucket, TakesTheBucketPathOnlyWhereTheInputFollowsTheKeyOrder) {
  const std::size_t n = std::size_t{4} << 20;
  const std::unique_ptr<Sorter> sorter = make_reserved(n, "span=0");
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::Sorted, n).ok);
  EXPECT_EQ(last_steps(*sorter), "sample," + std::string(kBucketPath)) << "first sort: fresh splitters";
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::Reverse, n).ok);
  EXPECT_EQ(last_steps(*sorter), kBucketPath) << "the same keys again: the last sort's splitters fit";
  // One key value: the sorted keys' splitters leave one bucket too full, so it falls back (and
  // keeps this output's splitters); the probe beside the next fallback finds the input coherent;
  // the third sort takes the bucket path with the one-value splitters.
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::AllEqual, n).ok);
  EXPECT_EQ(last_steps(*sorter), kCalledOff) << "the last splitters do not fit";
  EXPECT_EQ(sorter->segments().count, 0u);
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::AllEqual, n).ok);
  EXPECT_EQ(last_steps(*sorter), "fallback-cub");
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::AllEqual, n).ok);
  EXPECT_EQ(last_steps(*sorter), kBucketPath) << "the last probe found the input coherent";
  EXPECT_GT(sorter->segments().count, 1u);
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::Uniform, n).ok);
  EXPECT_EQ(last_steps(*sorter), kCalledOff) << "incoherent";
  EXPECT_EQ(sorter->segments().count, 0u);
  // After a fallback: the library sort at once (a probe of the input runs beside it) until a
  // probe finds the input coherent (the probe of one sort, with the splitters of the sort before,
  // decides the next).
  for (Distribution dist : {Distribution::Uniform, Distribution::Uniform, Distribution::Sorted}) {
    ASSERT_TRUE(sort_and_check(*sorter, dist, n).ok) << distribution_name(dist);
    EXPECT_EQ(last_steps(*sorter), "fallback-cub") << distribution_name(dist);
    EXPECT_EQ(sorter->segments().count, 0u) << distribution_name(dist);
  }
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::Sorted, n).ok);
  EXPECT_EQ(last_steps(*sorter), kBucketPath) << "the last probe found sorted input coherent";
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::Sorted, 1000).ok);
  EXPECT_EQ(last_steps(*sorter), "fallback-cub") << "below min_pairs";
}

// Input that stays in no order: after eight fallbacks in a row, the probe (and the splitters it
// needs) runs beside every probe_every-th sort only. Sorted input after a long run of uniform keys
// takes the bucket path again within probe_every + 1 sorts (the probe of one sort decides the
// next), and not before a probe has run: with probe_every=64 it is still the fallback after 16.
TEST_F(RunBucket, ProbesInputInNoOrderSparselyAndFindsTheBucketPathAgain) {
  const std::size_t n = std::size_t{4} << 20;
  const std::vector<float> sorted = make_keys(Distribution::Sorted, n);
  const std::vector<float> uniform = make_keys(Distribution::Uniform, n);
  // The sorts of `sorted` after 20 of `uniform` (the first two of `sorted` to give splitters)
  // until the bucket path comes back, at most `most`; returns how many it took.
  const auto sorts_until_bucket_path = [&](std::string_view options, int most) {
    const std::unique_ptr<Sorter> sorter = make_reserved(n, options);
    for (int sort = 0; sort < 2; ++sort) EXPECT_TRUE(sort_and_check(*sorter, sorted).ok);
    for (int sort = 0; sort < 20; ++sort) {
      EXPECT_TRUE(sort_and_check(*sorter, uniform).ok);
      if (sort > 0) {
        EXPECT_EQ(last_steps(*sorter), "fallback-cub") << options << ", uniform sort " << sort;
      }
    }
    for (int sort = 1; sort <= most; ++sort) {
      const CheckResult result = sort_and_check(*sorter, sorted);
      EXPECT_TRUE(result.ok) << result.message;
      if (last_steps(*sorter) == kBucketPath) return sort;
      EXPECT_EQ(last_steps(*sorter), "fallback-cub") << options << ", sorted sort " << sort;
    }
    return most + 1;
  };
  EXPECT_EQ(sorts_until_bucket_path("span=0,probe_every=1", 8), 2) << "a probe at every fallback";
  const int sparse = sorts_until_bucket_path("span=0,probe_every=8", 16);
  EXPECT_GE(sparse, 2);
  EXPECT_LE(sparse, 9) << "a probe at least every 8 sorts";
  EXPECT_EQ(sorts_until_bucket_path("span=0,probe_every=64", 16), 17) << "no probe within 16 sorts";
}

// Where the last keys differed in few low bits, the fallback finds this input's range and CUB
// sorts only the bits its keys differ in, also in the bucket path's place where there are no
// splitters yet, the keys were one value (copied) or the input's tiles spread over too many
// buckets; the bucket path is back once the keys are wide again, or once a probe finds narrow keys
// spread over few buckets. Negative keys topped by -0.0 are narrow in depthsort's key but not in
// CUB's (which reads -0.0 as +0.0): sorted on too few bits, the -0.0 keys would come first.
TEST_F(RunBucket, SortsOnlyTheBitsNarrowKeysDifferIn) {
  const std::size_t n = std::size_t{4} << 20;
  const std::unique_ptr<Sorter> sorter = make_reserved(n, "");
  constexpr std::string_view kNarrow = "key span,fallback-cub (span bits)";
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::CameraStep, n).ok);
  EXPECT_EQ(last_steps(*sorter), kNarrow) << "no range known yet: found (camera-step keys differ in 24 bits)";
  EXPECT_EQ(sorter->segments().count, 0u);
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::CameraStep, (1 << 20) + 3).ok);
  EXPECT_EQ(last_steps(*sorter), "fallback-cub") << "below min_pairs: the read-back costs what the pass saves";
  std::vector<float> negatives(n);
  for (std::size_t i = 0; i < n; ++i) negatives[i] = i % 1000 == 7 ? -0.0f : -1.0f - static_cast<float>(i % 977) / 977;
  const CheckResult topped = sort_and_check(*sorter, negatives);
  EXPECT_TRUE(topped.ok) << topped.message;
  EXPECT_EQ(last_steps(*sorter), "key span,fallback-cub") << "CUB's keys differ in the sign bit";
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::AllEqual, n).ok);
  EXPECT_TRUE(last_steps(*sorter).ends_with(",fallback-cub")) << "the last keys were wide: " << last_steps(*sorter);
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::AllEqual, n).ok);
  EXPECT_EQ(last_steps(*sorter), "key span,copy (one key value)");
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::Specials, n).ok);
  EXPECT_EQ(last_steps(*sorter), "key span,fallback-cub") << "+-0, +-inf and NaN: every bit";
  // Wide keys (uniform in [0, 1) differ in 28 bits): no key span; sorted ones take the bucket path
  // again once a probe finds them coherent.
  std::string steps;
  for (int sort = 0; sort < 3 && steps != kBucketPath; ++sort) {
    ASSERT_TRUE(sort_and_check(*sorter, Distribution::Sorted, n).ok);
    steps = last_steps(*sorter);
    EXPECT_EQ(steps.find("key span"), std::string::npos) << steps;
  }
  EXPECT_EQ(steps, kBucketPath);
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::CameraStep, n).ok);
  EXPECT_TRUE(last_steps(*sorter).starts_with("plan,")) << "the range is learnt from this output";
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::CameraStep, n).ok);
  EXPECT_EQ(last_steps(*sorter), kNarrow) << "the last splitters did not fit, and a probe goes beside";
  // A camera step leaves a tile's pairs in a few dozen buckets: the probe finds that narrow
  // enough by default, and too wide for max_spread=1.
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::CameraStep, n).ok);
  EXPECT_EQ(last_steps(*sorter), kBucketPath);
  // A cut after the bucket path on narrow keys: the plan calls the attempt off. Narrow keys in no
  // order take the key span and the span sort; wide keys skip the key span, since the plan's sample
  // is already wider than the span sort takes.
  std::vector<float> shuffled = make_keys(Distribution::CameraStep, n);
  std::mt19937 shuffle_order(7);
  std::shuffle(shuffled.begin(), shuffled.end(), shuffle_order);
  const CheckResult cut = sort_and_check(*sorter, shuffled);
  EXPECT_TRUE(cut.ok) << cut.message;
  EXPECT_EQ(last_steps(*sorter), "plan,scatter,key span,fallback-cub (span bits)");
  steps.clear();
  for (int sort = 0; sort < 3 && steps != kBucketPath; ++sort) {
    ASSERT_TRUE(sort_and_check(*sorter, Distribution::CameraStep, n).ok);
    steps = last_steps(*sorter);
  }
  ASSERT_EQ(steps, kBucketPath) << "back on the bucket path";
  ASSERT_TRUE(sort_and_check(*sorter, Distribution::Uniform, n).ok);
  EXPECT_EQ(last_steps(*sorter), kCalledOff);
  const std::unique_ptr<Sorter> strict = make_reserved(n, "max_spread=1");
  for (int sort = 0; sort < 4; ++sort) {
    ASSERT_TRUE(sort_and_check(*strict, Distribution::CameraStep, n).ok);
    EXPECT_EQ(last_steps(*strict), kNarrow) << "sort " << sort;
  }
}

// A mesh in mesh order at 16M pairs: a third of its samples lie outside their tile's window, but a
// tile's pairs crowd into about a hundred buckets (its rings lie at the same depths), so the scatter
// still writes long runs: the bucket path once a probe has seen the input (its keys differ in 31
// bits: no span sort). Two far-apart values in random order fall into two buckets a tile too, but
// half their samples lie outside: cub-radix. With max_runs=0 the mesh takes cub-radix as well.
TEST_F(RunBucket, TakesTheBucketPathWhereTilesFallIntoFewBuckets) {
  const std::size_t n = std::size_t{16} << 20;
  const std::vector<float> mesh = make_keys(Distribution::Mesh, n);
  const auto sort_until_bucket_path = [&](Sorter& sorter) {
    std::string steps;
    for (int sort = 0; sort < 4 && !steps.starts_with("plan,scatter,bucket sort"); ++sort) {
      const CheckResult result = sort_and_check(sorter, mesh);
      EXPECT_TRUE(result.ok) << result.message;
      steps = last_steps(sorter);
    }
    return steps;
  };
  const std::unique_ptr<Sorter> sorter = make_reserved(n);
  EXPECT_EQ(sort_until_bucket_path(*sorter), kBucketPath);
  std::vector<float> two_values(n);
  std::mt19937 mix(3);
  for (float& key : two_values) key = (mix() & 1) != 0 ? 1.0f : 1.0e6f;
  for (int sort = 0; sort < 4; ++sort) {
    const CheckResult result = sort_and_check(*sorter, two_values);
    EXPECT_TRUE(result.ok) << result.message;
    if (sort > 0) {
      EXPECT_EQ(last_steps(*sorter), "fallback-cub") << "two values, sort " << sort;
    }
  }
  const std::unique_ptr<Sorter> strict = make_reserved(n, "max_runs=0");
  EXPECT_EQ(sort_until_bucket_path(*strict), "fallback-cub");
}

// Beyond 8192 buckets (16M pairs) the splitter search takes more steps (15 at 32768 buckets) and
// a small-sort block keeps more bucket starts: the bucket path up to 64M pairs, at a bucket count
// that is no power of two and at the most, and cub-radix beyond.
TEST_F(RunBucket, TakesTheBucketPathUpTo64MPairs) {
  const std::size_t most = std::size_t{64} << 20;
  const std::unique_ptr<Sorter> sorter = make_reserved(most + 1, "span=0");
  for (const std::size_t n : {(std::size_t{40} << 20) + 5, most}) {
    for (const Distribution dist : {Distribution::Sorted, Distribution::NearlySorted}) {
      const CheckResult result = sort_and_check(*sorter, dist, n);
      EXPECT_TRUE(result.ok) << distribution_name(dist) << " n=" << n << ": " << result.message;
      EXPECT_EQ(last_steps(*sorter),
                dist == Distribution::Sorted ? "sample," + std::string(kBucketPath) : std::string(kBucketPath))
          << distribution_name(dist) << " n=" << n;
    }
  }
  const CheckResult beyond = sort_and_check(*sorter, Distribution::Sorted, most + 1);
  EXPECT_TRUE(beyond.ok) << beyond.message;
  EXPECT_EQ(last_steps(*sorter), "fallback-cub");
}

// Buckets whose keys spread over more values than the counting sort's slots, with equal keys: each
// key value four times, in an order shuffled within 512 places (equal keys from different warps),
// and half of each group of 2048 keys one value.
TEST_F(RunBucket, SortsWideBucketsWithEqualKeys) {
  const std::size_t n = std::size_t{4} << 20;
  std::vector<float> repeated(n), crowded(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Values 16 ordered keys apart in [1, 2), each four times.
    repeated[i] = 1.0f + static_cast<float>(i / 4) / static_cast<float>(std::size_t{1} << 19);
    const std::size_t group = i / 2048, j = i % 2048;
    const float within = j < 1024 ? 0.0f : static_cast<float>(j - 1024) / 1024.0f;
    crowded[i] = 1.0f + (static_cast<float>(group) + within) / 1024.0f;  // a group spans 8192 values in [1, 2)
  }
  std::mt19937 mix(7);
  for (std::size_t first = 0; first < n; first += 512)
    std::shuffle(repeated.begin() + static_cast<std::ptrdiff_t>(first),
                 repeated.begin() + static_cast<std::ptrdiff_t>(first + 512), mix);
  for (const std::vector<float>* keys : {&repeated, &crowded}) {
    const std::unique_ptr<Sorter> sorter = make_reserved(n, "span=0");
    for (int sort = 0; sort < 2; ++sort) {
      const CheckResult result = sort_and_check(*sorter, *keys);
      EXPECT_TRUE(result.ok) << (keys == &repeated ? "repeated" : "crowded") << ", sort " << sort << ": "
                             << result.message;
    }
    EXPECT_EQ(last_steps(*sorter), kBucketPath) << (keys == &repeated ? "repeated" : "crowded");
  }
}

// Every key moved the same way since the last sort (a camera flying forward): the keys beyond the
// last output's range fall into the buckets kept beyond each end of it, not into one end bucket
// far beyond its room.
TEST_F(RunBucket, KeysMovedBeyondTheLastRangeFillTheOuterBuckets) {
  const std::size_t n = std::size_t{4} << 20;
  const std::unique_ptr<Sorter> sorter = make_reserved(n, "span=0");
  std::vector<float> keys = make_keys(Distribution::Sorted, n);
  for (float& key : keys) key += 1.0f;  // in [1, 2)
  ASSERT_TRUE(sort_and_check(*sorter, keys).ok);
  ASSERT_EQ(last_steps(*sorter), "sample," + std::string(kBucketPath));
  for (float& key : keys) key += 0.005f;  // half a percent of the keys beyond the last range: 10 buckets' share
  const CheckResult shifted = sort_and_check(*sorter, keys);
  EXPECT_TRUE(shifted.ok) << shifted.message;
  EXPECT_EQ(last_steps(*sorter), kBucketPath) << "no bucket beyond its room";
  for (float& key : keys) key -= 0.01f;
  const CheckResult back = sort_and_check(*sorter, keys);
  EXPECT_TRUE(back.ok) << back.message;
  EXPECT_EQ(last_steps(*sorter), kBucketPath) << "no bucket beyond its room";
}

// The scatter loads a thread's pairs 16 bytes at a time where both input arrays allow it; pairs
// that start off a 16-byte boundary (a caller's buffers at an offset) take one load a pair, and
// must come out the same.
TEST_F(RunBucket, TakesTheBucketPathWithInputOffTheLoadsBoundaries) {
  const std::size_t n = (std::size_t{4} << 20) + 3;
  const std::unique_ptr<Sorter> sorter = make_reserved(n, "span=0");
  const std::vector<float> keys = make_keys(Distribution::CameraStep, n);
  const std::vector<std::uint32_t> values = make_values(n);
  DeviceBuffer<float> keys_in(n + 1, "test"), keys_out(n, "test");
  DeviceBuffer<std::uint32_t> values_in(n + 1, "test"), values_out(n, "test");
  DEPTHSORT_CUDA_CHECK(cudaMemcpy(keys_in.data() + 1, keys.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  DEPTHSORT_CUDA_CHECK(
      cudaMemcpy(values_in.data() + 1, values.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  const SortBuffers buffers{keys_in.data() + 1, values_in.data() + 1, keys_out.data(), values_out.data(), n};
  const std::vector<std::uint32_t> order = reference_order(keys);
  for (int sort = 0; sort < 2; ++sort) {
    DEPTHSORT_CUDA_CHECK(cudaMemset(keys_out.data(), 0xFF, keys_out.bytes()));  // poisoned
    DEPTHSORT_CUDA_CHECK(cudaMemset(values_out.data(), 0xFF, values_out.bytes()));
    sorter->sort(buffers, nullptr);
    DEPTHSORT_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(last_steps(*sorter), (sort == 0 ? "sample," : "") + std::string(kBucketPath));
    std::vector<float> sorted_keys(n);
    std::vector<std::uint32_t> sorted_values(n);
    DEPTHSORT_CUDA_CHECK(cudaMemcpy(sorted_keys.data(), keys_out.data(), keys_out.bytes(), cudaMemcpyDeviceToHost));
    DEPTHSORT_CUDA_CHECK(
        cudaMemcpy(sorted_values.data(), values_out.data(), values_out.bytes(), cudaMemcpyDeviceToHost));
    const CheckResult result = check_sorted_pairs(keys, order, sorted_keys, sorted_values);
    EXPECT_TRUE(result.ok) << "sort " << sort << ": " << result.message;
  }
}

// Keys in order at the sample's positions and one value between two splitters everywhere else:
// every pair but the sampled ones falls into one bucket, far beyond its room (and the input still
// looks coherent to the sample). The sort must notice and still be exact.
TEST_F(RunBucket, ExactAfterABucketOverflows) {
  const std::size_t n = std::size_t{2} << 20;
  const std::unique_ptr<Sorter> sorter = make_reserved(n, "span=0");
  std::vector<float> keys(n, 0.5f);
  const std::uint32_t samples = n / 2048 * 16;  // buckets of 2048 pairs, 16 samples each
  for (std::uint32_t j = 0; j < samples; ++j) keys[run_bucket::sample_position(j, n, samples)] = static_cast<float>(j);
  const CheckResult result = sort_and_check(*sorter, keys);
  EXPECT_EQ(last_steps(*sorter), "sample," + std::string(kBucketPath) + ",fallback-cub");
  EXPECT_TRUE(result.ok) << result.message;
}

// Sorted keys with runs {first, pairs} whose keys lie within one bucket of the splitters kept from
// them (a bucket holds about 2100 ranks): each run takes its keys from the 500 ranks after its
// first place, in a scrambled order.
std::vector<float> with_runs_in_one_bucket(const std::vector<float>& sorted,
                                           std::initializer_list<std::pair<std::size_t, std::size_t>> runs) {
  std::vector<float> keys = sorted;
  for (const auto& [first, pairs] : runs)
    for (std::size_t i = 0; i < pairs; ++i) keys[first + i] = sorted[first + i * 7 % 500];
  return keys;
}

// Splitters from sorted keys, then the same keys with two runs of tens of thousands of pairs whose
// keys lie within one bucket each (ten and six times its share): the two buckets keep their
// room's pairs in their regions, the rest goes to the spill area, and both are sorted after the
// others, together; the bucket path still runs and the result is exact.
TEST_F(RunBucket, SortsBucketsBeyondTheirRoomFromTheSpillArea) {
  const std::size_t n = std::size_t{4} << 20;
  const std::vector<float> sorted = make_keys(Distribution::Sorted, n);
  const std::unique_ptr<Sorter> sorter = with_splitters_of(sorted);
  ASSERT_TRUE(sorter);
  const std::vector<float> keys = with_runs_in_one_bucket(sorted, {{n / 2 + 100, 20000}, {n / 4 + 100, 12000}});
  const CheckResult result = sort_and_check(*sorter, keys);
  EXPECT_EQ(last_steps(*sorter), std::string(kBucketPath) + ",overflowed buckets");
  EXPECT_TRUE(result.ok) << result.message;
}

// Splitters from sorted keys, then the same keys with a run of 4000 pairs whose keys lie within one
// bucket (more than the small sort shape's 3072 pairs, within its room of 6144): the bucket sort
// lists that bucket for the large kernel, which sorts it after the others; the bucket path runs
// with no step more, and the result is exact.
TEST_F(RunBucket, SortsBucketsLargerThanTheSmallShape) {
  const std::size_t n = std::size_t{4} << 20;
  const std::vector<float> sorted = make_keys(Distribution::Sorted, n);
  const std::unique_ptr<Sorter> sorter = with_splitters_of(sorted);
  ASSERT_TRUE(sorter);
  const std::vector<float> keys = with_runs_in_one_bucket(sorted, {{n / 2 + 100, 4000}});
  const CheckResult result = sort_and_check(*sorter, keys);
  EXPECT_EQ(last_steps(*sorter), kBucketPath);
  EXPECT_TRUE(result.ok) << result.message;
  // The bucket of the run's keys took the pairs after its end up to the run's end: 1400 to 3500
  // more than its share of about 2100.
  const Segments segments = sorter->segments();
  ASSERT_GT(segments.count, 0u);
  std::vector<std::uint32_t> starts(segments.count + 1);
  DEPTHSORT_CUDA_CHECK(
      cudaMemcpy(starts.data(), segments.starts, starts.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  std::uint32_t largest = 0;
  for (std::uint32_t b = 0; b < segments.count; ++b) largest = std::max(largest, starts[b + 1] - starts[b]);
  EXPECT_GT(largest, 3072u);
  EXPECT_LE(largest, 6144u);
}

}  // namespace
}  // namespace depthsort::testing
