// run-bucket (docs/algorithms/run-bucket.md): the host dispatcher. It owns the workspace (reserved
// once) and the last sort's splitters, and runs the steps on the caller's stream: sample (only
// where no sort of this size came before: later ones take the last sort's output at equal ranks as
// their splitters), plan (the verdict, taken on the device and read by the host while the scatter
// runs), scatter, bucket sort (with the buckets' places in the output; it lists the buckets too
// large for its small shape or beyond their room and posts the plan with them as it starts, read
// by the host while it sorts), and, where some pairs did not fit their bucket's room, the
// overflowed buckets; or the fallback, CUB's radix sort, where the input is small, large or
// incoherent, the splitters do not fit it, or the spill area ran out. After a fallback the next
// sort falls back at once, with a probe of its input on a stream beside it (read without a wait by
// the sort after), until a probe finds the input coherent. Where the last sort's keys differed in
// at most 24 low bits (a depth range between two powers of two four apart, say), the fallback first
// finds this input's range (key span, one read-back) and CUB sorts only the bits its keys differ
// in: three digit passes instead of four. With such keys that sort also takes the bucket path's
// place where the input's tiles spread over more than max_spread buckets (the scatter's cost grows
// with the runs a tile leaves), where no splitters of this size exist (a sample sort costs more
// than it would save) and where the keys were one value (a copy).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "depthsort/sort/cuda_handles.hpp"
#include "depthsort/sort/device_buffer.hpp"
#include "depthsort/sort/errors.hpp"
#include "sort/core/signed_zero_fixup.hpp"
#include "sort/primitives/cub_radix_pairs.cuh"
#include "sort/primitives/key_range.hpp"
#include "sort/primitives/launch.hpp"
#include "sort/primitives/dynamic_smem.hpp"
#include "sort/primitives/staging.hpp"
#include "sort/run_bucket/fallback.hpp"
#include "sort/run_bucket/sort_buckets.cuh"
#include "sort/run_bucket/overflow.cuh"
#include "sort/run_bucket/plan.cuh"
#include "sort/run_bucket/run_bucket_kernels.cuh"
#include "sort/run_bucket/scatter.cuh"
#include "sort/run_bucket/run_bucket_sorter.hpp"

namespace depthsort::run_bucket {
namespace {

// The bucket sort's kernels (sort_buckets.cuh).
template <std::uint32_t kMostBucketsPerBlock>
constexpr auto kSmallBucketSort =
    small_bucket_sort_kernel<Policy::kSmallSort.threads, Policy::kSmallSort.items, Policy::kSmallSort.min_blocks,
                             Policy::kSmallSort.radix_bits, kMostBucketsPerBlock>;
constexpr auto kLargeBucketSort =
    large_bucket_sort_kernel<Policy::kLargeSort.threads, Policy::kLargeSort.items, Policy::kLargeSort.min_blocks,
                             Policy::kLargeSort.radix_bits>;

// The most pairs the bucket path takes: kMaxBuckets buckets of kBucketTarget pairs.
constexpr std::size_t kMaxBucketPairs = std::size_t{Policy::kMaxBuckets} * Policy::kBucketTarget;

// Pairs beyond their bucket's room that a sort of n pairs keeps (more: the fallback; Policy::kSpillShare).
std::size_t spill_capacity_for(std::size_t n) {
  return std::max<std::size_t>(n / Policy::kSpillShare, Policy::kBucketCapacity);
}

std::uint32_t buckets_for(std::size_t n) {
  return static_cast<std::uint32_t>(std::max<std::size_t>(2, (n + Policy::kBucketTarget - 1) / Policy::kBucketTarget));
}

class RunBucketSorter final : public Sorter {
 public:
  explicit RunBucketSorter(const RunBucketOptions& options)
      : Sorter("run-bucket", Backend::Gpu),
        max_outside_permille_(static_cast<std::uint32_t>(options.max_outside)),
        min_pairs_(std::size_t{1} << options.min_pairs_log2),
        span_bits_(options.span),
        max_spread_(static_cast<std::uint32_t>(options.max_spread)),
        max_runs_(static_cast<std::uint32_t>(options.max_runs)),
        probe_every_(static_cast<std::uint32_t>(options.probe_every)) {}

  std::size_t workspace_bytes() const override { return workspace_bytes_ + zero_fixup_.bytes(); }

  Segments segments() const override { return {starts_.data(), segment_count_, "bucket"}; }

 protected:
  void do_reserve(std::size_t max_n) override {
    // A larger reservation must not need the old and the new workspace at once.
    for (DeviceBuffer<std::uint32_t>* buffer : word_buffers()) *buffer = {};
    reuse_splitters_ = false;
    expect_fallback_ = false;
    fallbacks_in_a_row_ = 0;
    probe_pending_ = false;
    ends_pending_ = false;
    last_differing_bits_ = 0;
    temp_ = {};
    zero_fixup_ = {};
    segment_count_ = 0;
    const std::string& owner = name();
    const std::size_t bucket_n = std::min(max_n, kMaxBucketPairs);
    const std::uint32_t buckets = buckets_for(bucket_n);
    const std::uint32_t samples = buckets * Policy::kSamplesPerBucket;
    bucketed_keys_ = DeviceBuffer<std::uint32_t>(std::size_t{buckets} * Policy::kBucketCapacity, owner);
    bucketed_values_ = DeviceBuffer<std::uint32_t>(std::size_t{buckets} * Policy::kBucketCapacity, owner);
    // The spill area holds a 64th of the pairs; the overflowed buckets' sort, their regions too.
    const std::size_t spill_capacity = spill_capacity_for(bucket_n);
    spill_keys_ = DeviceBuffer<std::uint32_t>(spill_capacity, owner);
    spill_values_ = DeviceBuffer<std::uint32_t>(spill_capacity, owner);
    const std::size_t overflowed_pairs =
        std::size_t{std::min(Policy::kMostOverflowedBuckets, buckets)} * Policy::kBucketCapacity + spill_capacity;
    for (auto* buffer : {&overflowed_keys_, &overflowed_values_, &sorted_overflowed_keys_, &sorted_overflowed_values_})
      *buffer = DeviceBuffer<std::uint32_t>(overflowed_pairs, owner);
    overflowed_list_ = DeviceBuffer<std::uint32_t>(Policy::kMostOverflowedBuckets, owner);
    sample_ = DeviceBuffer<std::uint32_t>(samples, owner);
    sorted_sample_ = DeviceBuffer<std::uint32_t>(samples, owner);
    splitters_ = DeviceBuffer<std::uint32_t>(kSplitterSlots, owner);
    splitter_table_ = DeviceBuffer<std::uint32_t>(kTableEntries, owner);
    probe_counters_ = DeviceBuffer<std::uint32_t>(kProbeCounterWords, owner);
    DEPTHSORT_CUDA_CHECK(cudaMemset(probe_counters_.data(), 0, probe_counters_.bytes()));
    if (!probe_stream_) {
      probe_stream_.emplace();
      probe_start_.emplace(cudaEventDisableTiming);
      probe_done_.emplace(cudaEventDisableTiming);
      large_stream_.emplace();
      small_queued_.emplace(cudaEventDisableTiming);
      large_done_.emplace(cudaEventDisableTiming);
      probe_verdict_ = PinnedBuffer<std::uint32_t>(kProbeVerdictWords);
      ends_written_.emplace(cudaEventDisableTiming);
      output_ends_ = PinnedBuffer<std::uint32_t>(2);
      range_reader_ = primitives::KeyRangeReader(owner);
      judged_mailbox_ = primitives::PinnedMailbox<Plan>("run-bucket's verdict");
      plan_mailbox_ = primitives::PinnedMailbox<Plan>("run-bucket's plan");
    }
    cursors_ = DeviceBuffer<std::uint32_t>(buckets + 1, owner);
    starts_ = DeviceBuffer<std::uint32_t>(buckets + 1, owner);
    sample_counts_ = DeviceBuffer<std::uint32_t>(buckets, owner);
    large_list_ = DeviceBuffer<std::uint32_t>(buckets, owner);
    plan_ = DeviceBuffer<Plan>(1, owner);
    // Zero for the first attempt; after each attempt the kept splitters' kernel zeroes them.
    DEPTHSORT_CUDA_CHECK(cudaMemset(plan_.data(), 0, plan_.bytes()));
    DEPTHSORT_CUDA_CHECK(cudaMemset(cursors_.data(), 0, cursors_.bytes()));
    DEPTHSORT_CUDA_CHECK(cudaMemset(sample_counts_.data(), 0, sample_counts_.bytes()));
    std::size_t sort_bytes = 0, fallback_bytes = 0, overflowed_bytes = 0;
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, sample_.data(), sorted_sample_.data(),
                                                        static_cast<int>(samples)));
    DEPTHSORT_CUDA_CHECK(primitives::cub_radix_sort_pairs(
        nullptr, overflowed_bytes, overflowed_keys_.data(), sorted_overflowed_keys_.data(), overflowed_values_.data(),
        sorted_overflowed_values_.data(), overflowed_pairs, 32, nullptr));
    fallback_bytes = fallback_temp_bytes(max_n);
    temp_ =
        DeviceBuffer<unsigned char>(std::max({sort_bytes, fallback_bytes, overflowed_bytes, std::size_t{1}}), owner);
    zero_fixup_ = SignedZeroFixup(max_n, owner);
    int per_multiprocessor = 0;
    DEPTHSORT_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, scatter_kernel, Policy::kTileThreads, 0));
    const int multiprocessors = primitives::multiprocessor_count();
    scatter_blocks_ = static_cast<unsigned>(std::max(1, per_multiprocessor) * multiprocessors);
    // The small kernel's buffers: two where its architecture copies a bucket while the last is
    // sorted, one where it cannot (primitives/staging.hpp).
    small_staged_bytes_ =
        staged_bucket_bytes<Policy::kSmallSort.threads, Policy::kSmallSort.items>(primitives::staging_path_for(
            primitives::compiled_arch(kSmallBucketSort<Policy::kManyBucketsPerSmallSortBlock>)));
    primitives::allow_dynamic_smem(kSmallBucketSort<Policy::kFewBucketsPerSmallSortBlock>, small_staged_bytes_,
                                   "run-bucket small_bucket_sort_kernel");
    primitives::allow_dynamic_smem(kSmallBucketSort<Policy::kManyBucketsPerSmallSortBlock>, small_staged_bytes_,
                                   "run-bucket small_bucket_sort_kernel");
    DEPTHSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_multiprocessor, kSmallBucketSort<Policy::kManyBucketsPerSmallSortBlock>, Policy::kSmallSort.threads,
        small_staged_bytes_));
    small_blocks_ = static_cast<unsigned>(std::max(1, per_multiprocessor) * multiprocessors);
    large_blocks_ = static_cast<unsigned>(multiprocessors);
    workspace_bytes_ = plan_.bytes() + temp_.bytes() + range_reader_.bytes();
    for (const DeviceBuffer<std::uint32_t>* buffer : word_buffers()) workspace_bytes_ += buffer->bytes();
  }

  void do_sort(const SortBuffers& b, cudaStream_t stream, StepTimer& timer) override {
    segment_count_ = 0;
    if (b.n == 0) return;
    read_last_output_ends();
    const std::uint32_t fallbacks_before = fallbacks_in_a_row_;
    fallbacks_in_a_row_ = 0;
    if (b.n < min_pairs_ || b.n > kMaxBucketPairs) {
      // No splitters to keep. Above the bucket path's sizes the library sort leaves the keys'
      // range where the host reads it; below min_pairs it is cub-radix's sort as it is, with no
      // range for the span sort, which starts there (writing it to host memory made 1M-pair sorts
      // slower: docs/results/run-bucket.md).
      const bool keep_range = b.n >= min_pairs_;
      if (fall_back(b, stream, timer, keep_range) && keep_range) note_output_ends(stream);
      return;
    }
    const std::uint32_t buckets = buckets_for(b.n);
    // The last sort's output at equal ranks, where it had as many buckets: no sample sort.
    const bool last_splitters = reuse_splitters_ && splitter_buckets_ == buckets;
    // Narrow keys with no splitters of this size (a sample sort costs more than the bucket path
    // would save) or of one value (a copy): the span sort at once; a probe beside the next sort
    // says whether the bucket path pays.
    if (span_sort_pays(b.n) && (!last_splitters || last_differing_bits_ == 0)) {
      fall_back(b, stream, timer);
      expect_fallback_ = true;
      return keep_from_output(b, buckets, stream);
    }
    if (last_splitters && expect_fallback_ && !probe_found_bucket_path(b.n)) {
      // Input that stays in no order (a scene listed in its own order) pays for a probe and the
      // splitters it needs at every sort only at first; then at every probe_every-th.
      fallbacks_in_a_row_ = fallbacks_before + 1;
      if (fallbacks_in_a_row_ > Policy::kFallbacksProbedEachTime && fallbacks_in_a_row_ % probe_every_ != 0) {
        if (fall_back(b, stream, timer)) note_output_ends(stream);
        return;
      }
      const bool probed = probe(b, buckets, stream);
      fall_back(b, stream, timer);
      if (probed) DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, probe_done_->get(), 0));
      return keep_from_output(b, buckets, stream);
    }
    // Where the last splitters leave a bucket too full (the keys' distribution moved: a camera
    // flying forward, a cut), fresh ones cost a sample sort that the bucket path does not win
    // back at these sizes: this sort falls back, and its output gives the next one's splitters.
    const Plan plan = attempt(b, buckets, !last_splitters, stream, timer);
    const bool bucket_path = plan.verdict == kBucketPath && plan.overflow == 0;
    if (bucket_path) {
      if (plan.spilled_pairs != 0) sort_overflowed_buckets(b, plan, stream, timer);
      segment_count_ = buckets;
    } else {
      // Keys of the sample that already differ in too many bits for the span sort: so do the
      // input's, and the fallback needs no key span (a cut's frame after a bucket-path one).
      const int sample_bits = plan.sample_range.cub_differing_bits();
      if (sample_bits > primitives::kMostBitsThatSaveAPass) last_differing_bits_ = sample_bits;
      fall_back(b, stream, timer);
    }
    // Keys narrow enough for the span sort, in tiles spread wider than max_spread: the span sort
    // next time (a probe beside it says when the bucket path would be faster again).
    expect_fallback_ = !bucket_path || (span_sort_pays(b.n) && plan.spread_sum > std::uint64_t{max_spread_} * buckets);
    keep_from_output(b, buckets, stream, /*after_attempt=*/plan.verdict == kBucketPath);
  }

 private:
  void pick_fresh_splitters(std::uint32_t buckets, cudaStream_t stream) {
    const std::uint32_t samples = buckets * Policy::kSamplesPerBucket;
    std::size_t bytes = temp_.bytes();
    DEPTHSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_.data(), bytes, sample_.data(), sorted_sample_.data(),
                                                        static_cast<int>(samples), 0, 32, stream));
    pick_splitters_kernel<<<primitives::grid_for(searched_slots(buckets - 1), 256), 256, 0, stream>>>(
        sorted_sample_.data(), buckets, splitters_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket pick_splitters_kernel");
  }

  // The buckets beyond their room (overflow.cuh), once the plan says which: their regions and the
  // spill area gathered, sorted by CUB and written at their places.
  void sort_overflowed_buckets(const SortBuffers& b, const Plan& plan, cudaStream_t stream, StepTimer& timer) {
    StepScope step(timer, "overflowed buckets", StepStart::AtLastStepEnd);
    const std::uint32_t pairs = plan.overflowed_buckets * Policy::kBucketCapacity + plan.spilled_pairs;
    gather_overflowed_kernel<<<primitives::grid_for(pairs, 256), 256, 0, stream>>>(
        overflowed_list_.data(), plan.overflowed_buckets, bucketed_keys_.data(), bucketed_values_.data(),
        spill_keys_.data(), spill_values_.data(), plan.spilled_pairs, overflowed_keys_.data(),
        overflowed_values_.data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket gather_overflowed_kernel");
    std::size_t bytes = temp_.bytes();
    DEPTHSORT_CUDA_CHECK(primitives::cub_radix_sort_pairs(temp_.data(), bytes, overflowed_keys_.data(),
                                                          sorted_overflowed_keys_.data(), overflowed_values_.data(),
                                                          sorted_overflowed_values_.data(), pairs, 32, stream));
    place_overflowed_kernel<<<primitives::grid_for(pairs, 256), 256, 0, stream>>>(
        sorted_overflowed_keys_.data(), sorted_overflowed_values_.data(), pairs, overflowed_list_.data(),
        plan.overflowed_buckets, starts_.data(), b.keys_out, b.values_out);
    DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket place_overflowed_kernel");
  }

  // Whether the last probe found its input fit for the bucket path: coherent and, where the span
  // sort is the other choice, spread over few enough buckets per tile. Never waited for: a probe
  // still running says no; each probe is read once.
  bool probe_found_bucket_path(std::size_t n) {
    if (!arrived(probe_pending_, *probe_done_)) return false;
    const std::uint64_t tiles = probed_tiles(static_cast<std::uint32_t>(n));
    const bool coherent = few_runs(probe_verdict_[kProbedOutside], probe_verdict_[kProbedSharedBuckets],
                                   tiles * Policy::kSamplesPerTile, max_outside_permille_, runs_limit(n));
    return coherent && (!span_sort_pays(n) || probe_verdict_[kProbedSpread] <= std::uint64_t{max_spread_} * tiles);
  }

  // Probes this input with the last sort's splitters on a stream of its own, beside the library
  // sort (it takes a few microseconds of latency-bound loads), unless the last probe is still on
  // its way. Returns whether it launched one: the caller's stream must then wait for it before the
  // splitters change.
  bool probe(const SortBuffers& b, std::uint32_t buckets, cudaStream_t stream) {
    if (probe_pending_) return false;
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(probe_start_->get(), stream));
    DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(probe_stream_->get(), probe_start_->get(), 0));
    probe_kernel<<<primitives::grid_for(Policy::kProbeTiles * Policy::kSamplesPerTile, 256), 256, 0,
                   probe_stream_->get()>>>(b.keys_in, static_cast<std::uint32_t>(b.n), splitters_.data(), buckets,
                                           probe_counters_.data(), probe_verdict_.device_data());
    DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket probe_kernel");
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(probe_done_->get(), probe_stream_->get()));
    probe_pending_ = true;
    return true;
  }

  // The bucket path, with fresh splitters or the last sort's. Two read-backs, neither of which the
  // device waits for: the plan's verdict, taken on the device, read while the scatter (queued
  // before it, and returning at once on any other verdict) runs, so that a called-off attempt
  // queues none of the bucket sort's kernels; and the plan with the buckets too large for the
  // small shape or beyond their room and the spill, posted by the small-bucket kernel once its
  // blocks have listed them (as it starts) and read while the small buckets are sorted, so that
  // the host queues what comes after (the large kernel where a bucket needs it, the overflowed
  // buckets' sort or the fallback, the kept splitters) before the device is done. Waiting for the
  // plan at the attempt's end instead left the device idle for the host's turn in every sort.
  Plan attempt(const SortBuffers& b, std::uint32_t buckets, bool fresh, cudaStream_t stream, StepTimer& timer) {
    const std::uint32_t n = static_cast<std::uint32_t>(b.n);
    const std::uint32_t samples = buckets * Policy::kSamplesPerBucket;
    if (fresh) {
      StepScope step(timer, "sample");
      gather_sample_kernel<<<primitives::grid_for(samples, 256), 256, 0, stream>>>(b.keys_in, n, samples,
                                                                                   sample_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket gather_sample_kernel");
      pick_fresh_splitters(buckets, stream);
    }
    {
      StepScope step(timer, "plan");
      // Fresh splitters come from this sample: no bucket is judged by it. Otherwise what the
      // sample says goes beyond the buckets' room should fill at most half the spill area.
      const auto most_excess_samples =
          static_cast<std::uint32_t>(spill_capacity_for(n) / 2 / (Policy::kBucketTarget / Policy::kSamplesPerBucket));
      plan_kernel<<<plan_blocks(samples) + kTableBlocks, 256, 0, stream>>>(
          b.keys_in, n, samples, splitters_.data(), buckets, sample_counts_.data(), plan_.data(), max_outside_permille_,
          runs_limit(b.n), fresh ? 0xFFFFFFFFu : Policy::kMostSamplesInABucket,
          fresh ? 0xFFFFFFFFu : most_excess_samples, splitter_table_.data(), judged_mailbox_.slot(),
          judged_mailbox_.next_sequence());
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket plan_kernel");
    }
    {
      StepScope step(timer, "scatter", StepStart::AtLastStepEnd);
      scatter_kernel<<<primitives::grid_for(n, Policy::kTile, scatter_blocks_), Policy::kTileThreads, 0, stream>>>(
          b.keys_in, b.values_in, n, splitters_.data(), splitter_table_.data(), buckets, cursors_.data(),
          bucketed_keys_.data(), bucketed_values_.data(),
          SpillArea{spill_keys_.data(), spill_values_.data(), static_cast<std::uint32_t>(spill_capacity_for(n))},
          plan_.data());
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket scatter_kernel");
    }
    // Called off: the plan's last block has ended the attempt.
    const Plan judged = judged_mailbox_.wait(stream);
    if (judged.verdict != kBucketPath) return judged;
    // The verdict's wait queues an untimed event only: the bucket sort starts where the scatter ends.
    StepScope step(timer, "bucket sort", StepStart::AtLastStepEnd);
    // Every block keeps the starts of at most 64 buckets where such a grid fits the GPU at once,
    // else of at most 128.
    const bool few =
        (buckets + Policy::kFewBucketsPerSmallSortBlock) / Policy::kFewBucketsPerSmallSortBlock <= small_blocks_;
    const std::uint32_t most_per_block =
        few ? Policy::kFewBucketsPerSmallSortBlock : Policy::kManyBucketsPerSmallSortBlock;
    const std::uint32_t small_blocks =
        std::max(std::min(small_blocks_, buckets + 1), (buckets + most_per_block) / most_per_block);
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(small_queued_->get(), stream));
    const auto small_sort = few ? kSmallBucketSort<Policy::kFewBucketsPerSmallSortBlock>
                                : kSmallBucketSort<Policy::kManyBucketsPerSmallSortBlock>;
    small_sort<<<small_blocks, Policy::kSmallSort.threads, small_staged_bytes_, stream>>>(
        bucketed_keys_.data(), bucketed_values_.data(), cursors_.data(), splitters_.data(), buckets, starts_.data(),
        large_list_.data(), overflowed_list_.data(), plan_.data(), plan_mailbox_.slot(), plan_mailbox_.next_sequence(),
        b.keys_out, b.values_out);
    DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket small_bucket_sort_kernel");
    const Plan scattered = plan_mailbox_.wait(stream);
    if (scattered.overflow == 0 && scattered.large_buckets != 0) {
      // Beside the small buckets' sort, on a stream of its own: its blocks take the
      // multiprocessors that the small kernel's blocks leave as they finish (its list and the
      // buckets' places are written, and posted, as that kernel starts), instead of starting after
      // the last of them.
      const cudaStream_t large = large_stream_->get();
      DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(large, small_queued_->get(), 0));
      kLargeBucketSort<<<std::min(large_blocks_, scattered.large_buckets), Policy::kLargeSort.threads, 0, large>>>(
          bucketed_keys_.data(), bucketed_values_.data(), cursors_.data(), starts_.data(), large_list_.data(),
          scattered.large_buckets, b.keys_out, b.values_out);
      DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket large_bucket_sort_kernel");
      DEPTHSORT_CUDA_CHECK(cudaEventRecord(large_done_->get(), large));
      DEPTHSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, large_done_->get(), 0));
    }
    return scattered;
  }

  // What the next sort takes from this one's output: its splitters (this output at equal ranks)
  // and the keys' range, read by the host once written.
  // After an attempt that took the bucket path (`after_attempt`), the same kernel zeroes what the
  // next attempt counts in.
  void keep_from_output(const SortBuffers& b, std::uint32_t buckets, cudaStream_t stream, bool after_attempt = false) {
    keep_from_output_kernel<<<primitives::grid_for(searched_slots(buckets - 1), 256), 256, 0, stream>>>(
        b.keys_out, b.n, buckets, splitters_.data(), output_ends_.device_data(),
        after_attempt ? AttemptToClear{cursors_.data(), sample_counts_.data(), buckets, plan_.data()}
                      : AttemptToClear{});
    DEPTHSORT_CUDA_CHECK_LAUNCH("run-bucket keep_from_output_kernel");
    note_output_ends(stream);
    reuse_splitters_ = true;
    splitter_buckets_ = buckets;
  }

  // The output's range is on its way to output_ends_ once the stream reaches this point.
  void note_output_ends(cudaStream_t stream) {
    DEPTHSORT_CUDA_CHECK(cudaEventRecord(ends_written_->get(), stream));
    ends_pending_ = true;
  }

  // The last output's key range, once written (never waited for: until then the last known one).
  void read_last_output_ends() {
    if (arrived(ends_pending_, *ends_written_))
      last_differing_bits_ = primitives::KeyRange{~output_ends_[0], output_ends_[1]}.cub_differing_bits();
  }

  // Whether what the device writes before `event` (pending: not yet read) is there now: then it is
  // read once, so pending is cleared. Never waits.
  static bool arrived(bool& pending, const CudaEvent& event) {
    if (!pending) return false;
    const cudaError_t done = cudaEventQuery(event.get());
    if (done == cudaErrorNotReady) return false;
    DEPTHSORT_CUDA_CHECK(done);
    pending = false;
    return true;
  }

  // max_runs where the competitor is CUB's full sort; where it is the span sort, 0 (its pass
  // saved is worth more than the bucket path gains on such tiles).
  std::uint32_t runs_limit(std::size_t n) const { return span_sort_pays(n) ? 0u : max_runs_; }

  // Whether the last keys differed in few enough low bits for CUB to skip a digit pass, at a size
  // where the pass saved outweighs finding the range (below min_pairs the read-back costs more).
  bool span_sort_pays(std::size_t n) const {
    return span_bits_ && n >= min_pairs_ && last_differing_bits_ <= primitives::kMostBitsThatSaveAPass;
  }

  // The input is too small or too large for the bucket path, its order does not follow the key
  // order, the last splitters do not fit it, a bucket overflowed, the last sort fell back (or
  // spread its tiles too wide for narrow keys) and no probe has found the input fit since, or the
  // keys are narrow and no splitters of this size exist or the keys were one value: CUB's radix
  // sort. Where the last keys differed in few low bits, this input's range first (its one
  // read-back), and CUB sorts only the bits its keys differ in. Returns whether it took
  // cub-radix's sort, which leaves the output's range in output_ends_ where keep_range says so.
  bool fall_back(const SortBuffers& b, cudaStream_t stream, StepTimer& timer, bool keep_range = true) {
    return run_bucket::fall_back(b, stream, timer, span_sort_pays(b.n),
                                 keep_range ? output_ends_.device_data() : nullptr, last_differing_bits_,
                                 FallbackTools{range_reader_, temp_, zero_fixup_});
  }

  std::uint32_t max_outside_permille_ = 0;
  bool reuse_splitters_ = false;          // splitters_ hold the last sort's output at equal ranks
  bool expect_fallback_ = false;          // the next sort falls back unless a probe finds the input fit
  bool probe_pending_ = false;            // a probe's verdict is on its way to probe_verdict_
  bool ends_pending_ = false;             // the last output's key range is on its way to output_ends_
  bool span_bits_ = true;                 // the fallback sorts only the bits its keys differ in
  std::uint32_t max_spread_ = 0;          // narrow keys take the bucket path up to this spread per tile
  std::uint32_t max_runs_ = 0;            // or wide keys with many pairs outside their window, up to these runs
  std::uint32_t probe_every_ = 1;         // after kFallbacksProbedEachTime fallbacks in a row, probe every this many
  std::uint32_t fallbacks_in_a_row_ = 0;  // sorts that fell back at once, expecting to, up to this one
  int last_differing_bits_ = 0;           // low bits the last keys differed in, as far as known
  std::uint32_t splitter_buckets_ = 0;
  std::size_t min_pairs_ = 0;
  SignedZeroFixup zero_fixup_;
  unsigned scatter_blocks_ = 1;
  unsigned small_blocks_ = 1;
  std::size_t small_staged_bytes_ = 0;  // the small kernel's dynamic shared memory
  unsigned large_blocks_ = 1;
  std::size_t workspace_bytes_ = 0;
  std::uint32_t segment_count_ = 0;
  DeviceBuffer<std::uint32_t> bucketed_keys_, bucketed_values_, sample_, sorted_sample_, splitters_, splitter_table_,
      cursors_, starts_, sample_counts_, large_list_, probe_counters_, spill_keys_, spill_values_, overflowed_list_,
      overflowed_keys_, overflowed_values_, sorted_overflowed_keys_, sorted_overflowed_values_;
  // Every buffer of words above, for the reservation and the workspace's size.
  std::array<DeviceBuffer<std::uint32_t>*, 18> word_buffers() {
    return {&bucketed_keys_,
            &bucketed_values_,
            &sample_,
            &sorted_sample_,
            &splitters_,
            &splitter_table_,
            &cursors_,
            &starts_,
            &sample_counts_,
            &large_list_,
            &probe_counters_,
            &spill_keys_,
            &spill_values_,
            &overflowed_list_,
            &overflowed_keys_,
            &overflowed_values_,
            &sorted_overflowed_keys_,
            &sorted_overflowed_values_};
  }
  // Made at the first reservation (the registry builds sorters where there is no device): the
  // probe's stream, the events that fork it from the caller's and mark its end, and the last
  // probe's verdict (samples outside their window, the tiles' spreads), written there by the device.
  std::optional<CudaStream> probe_stream_;
  std::optional<CudaEvent> probe_start_, probe_done_;
  // The large buckets' sort beside the small ones': its stream, the point where the small kernel
  // was queued (the large kernel waits for it) and the large kernel's end (the caller's stream
  // waits for it).
  std::optional<CudaStream> large_stream_;
  std::optional<CudaEvent> small_queued_, large_done_;
  PinnedBuffer<std::uint32_t> probe_verdict_;
  // The last output's first and last ordered key, written by the device after each sort.
  std::optional<CudaEvent> ends_written_;
  PinnedBuffer<std::uint32_t> output_ends_;
  primitives::KeyRangeReader range_reader_;         // this input's range, for the fallback
  primitives::PinnedMailbox<Plan> judged_mailbox_;  // the plan with its verdict, posted by the plan's last block
  primitives::PinnedMailbox<Plan> plan_mailbox_;    // the plan with the lists, posted by the bucket sort
  DeviceBuffer<Plan> plan_;
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<Sorter> make_run_bucket_sorter(const OptionValues& options) {
  return std::make_unique<RunBucketSorter>(RunBucketOptions::from(options));
}

}  // namespace depthsort::run_bucket
