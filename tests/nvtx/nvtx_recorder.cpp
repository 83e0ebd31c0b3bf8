// An NVTX 3 injection library that records every push and pop of the `depthsort` domain, so a test
// can see the ranges exactly as a profiler (Nsight Compute, Nsight Systems) is handed them.
//
// NVTX loads the library named by NVTX_INJECTION64_PATH at the process's first NVTX call and calls
// its exported InitializeInjectionNvtx2 with a function that returns NVTX's export tables
// (nvtx3/nvtxDetail/nvtxInit.h). The callbacks table gives, per module, an array of pointers to the
// function pointers NVTX calls; the library fills in those of the core2 module it needs (domain
// create, domain range push and pop), the rest stay no-ops.
//
// Output: the file named by DEPTHSORT_NVTX_RECORD, one line per event, flushed at once so a crash
// keeps what came before:
//   push<TAB>THREAD<TAB>NAME      a range of the depthsort domain opened on thread THREAD (1, 2, ...)
//   pop<TAB>THREAD                the innermost open range of that thread closed
// Ranges of other domains are not recorded. Without DEPTHSORT_NVTX_RECORD the library refuses to
// initialise (NVTX then turns every call into a no-op) and says why on stderr.
// The types and callback ids only: a tool defines no NVTX functions of its own.
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr const char* kDomain = "depthsort";

struct Recorder {
  std::mutex mutex;
  std::FILE* file = nullptr;
  std::map<std::thread::id, int> threads;             // small numbers, in order of first event
  std::vector<std::unique_ptr<std::string>> domains;  // a handle is the address of its name
  const std::string* depthsort_domain = nullptr;

  int thread_number() {
    const auto [it, added] = threads.emplace(std::this_thread::get_id(), static_cast<int>(threads.size()) + 1);
    return it->second;
  }
  bool ours(nvtxDomainHandle_t domain) const {
    return depthsort_domain != nullptr && reinterpret_cast<const std::string*>(domain) == depthsort_domain;
  }
};

// One per process, alive until exit: NVTX calls into it from any thread at any time.
Recorder& recorder() {
  static Recorder* instance = new Recorder;
  return *instance;
}

nvtxDomainHandle_t NVTX_API domain_create(const char* name) {
  Recorder& r = recorder();
  const std::lock_guard lock(r.mutex);
  for (const auto& existing : r.domains)
    if (*existing == name) return reinterpret_cast<nvtxDomainHandle_t>(existing.get());
  r.domains.push_back(std::make_unique<std::string>(name));
  const std::string* handle = r.domains.back().get();
  if (*handle == kDomain) r.depthsort_domain = handle;
  return reinterpret_cast<nvtxDomainHandle_t>(const_cast<std::string*>(handle));
}

void NVTX_API domain_destroy(nvtxDomainHandle_t) {}  // handles stay valid: names outlive the domain

std::string message_of(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return "(no attributes)";
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return attributes->message.ascii ? attributes->message.ascii : "(null)";
    case NVTX_MESSAGE_UNKNOWN:
      return "(no message)";
    default:
      return "(message type " + std::to_string(attributes->messageType) + ")";
  }
}

int NVTX_API domain_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  Recorder& r = recorder();
  const std::lock_guard lock(r.mutex);
  if (!r.ours(domain)) return 0;
  std::string name = message_of(attributes);
  for (char& c : name)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';  // one event a line, whatever the name holds
  std::fprintf(r.file, "push\t%d\t%s\n", r.thread_number(), name.c_str());
  std::fflush(r.file);
  return 0;
}

int NVTX_API domain_pop(nvtxDomainHandle_t domain) {
  Recorder& r = recorder();
  const std::lock_guard lock(r.mutex);
  if (!r.ours(domain)) return 0;
  std::fprintf(r.file, "pop\t%d\n", r.thread_number());
  std::fflush(r.file);
  return 0;
}

template <typename Function>
void set_callback(NvtxFunctionTable table, unsigned int size, unsigned int id, Function function) {
  if (id <= size && table[id] != nullptr) *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  const char* path = std::getenv("DEPTHSORT_NVTX_RECORD");
  if (path == nullptr || *path == '\0') {
    std::fprintf(stderr,
                 "depthsort NVTX recorder: DEPTHSORT_NVTX_RECORD (the file to write) is not set; not recording\n");
    return 0;
  }
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) {
    std::fprintf(stderr, "depthsort NVTX recorder: NVTX gave no callbacks table\n");
    return 0;
  }
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || table == nullptr) {
    std::fprintf(stderr, "depthsort NVTX recorder: NVTX gave no core2 function table\n");
    return 0;
  }
  Recorder& r = recorder();
  r.file = std::fopen(path, "w");
  if (r.file == nullptr) {
    std::fprintf(stderr, "depthsort NVTX recorder: cannot write %s: %s\n", path, std::strerror(errno));
    return 0;
  }
  set_callback(table, size, NVTX_CBID_CORE2_DomainCreateA, &domain_create);
  set_callback(table, size, NVTX_CBID_CORE2_DomainDestroy, &domain_destroy);
  set_callback(table, size, NVTX_CBID_CORE2_DomainRangePushEx, &domain_push);
  set_callback(table, size, NVTX_CBID_CORE2_DomainRangePop, &domain_pop);
  return 1;
}
