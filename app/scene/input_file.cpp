#include "scene/input_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "depthsort/host/count_text.hpp"
#include "depthsort/host/memory_available.hpp"
#include "depthsort/host/stop_signal.hpp"
#include "scene/obj_text.hpp"

namespace depthsort::app {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_input_file(const std::string& path, std::size_t limit, const char* what) {
  const std::string shown = shown_path(path);
  const auto fail = [&](const std::string& why) -> SceneError { return SceneError(shown + ": " + why); };
  // O_NONBLOCK: opening a FIFO without a writer must not block; reads below wait with poll().
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    const int code = errno;
    if (code == ENOENT) throw fail("no such file");
    if (code == EISDIR) throw fail(std::string("is a directory, not an ") + what);
    throw fail(std::string("cannot open (") + std::strerror(code) + ")");
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw fail(std::string("cannot stat (") + std::strerror(errno) + ")");
  const bool regular = S_ISREG(info.st_mode), pipe = S_ISFIFO(info.st_mode);
  if (S_ISDIR(info.st_mode)) throw fail(std::string("is a directory, not an ") + what);
  if (!regular && !pipe)
    throw fail(std::string("is ") + kind_of(info.st_mode) + ", not an " + what +
               " (only regular files, pipes and FIFOs are read)");
  if (regular && static_cast<std::size_t>(info.st_size) > limit)
    throw fail(std::string("is ") + byte_text(static_cast<std::size_t>(info.st_size), ByteUnits::Exact) +
               ", above the limit of " + byte_text(limit, ByteUnits::Exact) + " for an " + what);

  std::string text;
  // The text is held whole: each size it grows to must fit the memory there is (within ulimit -v),
  // or the file is refused with the numbers, not ended by an allocation failure naming nothing.
  const auto reserve = [&](std::size_t bytes) {
    const std::optional<std::uint64_t> available = host_memory_available();
    if (available && bytes > *available)
      throw fail("reading it needs about " + byte_text(bytes, ByteUnits::MiBOrGiB) + " of memory, but " +
                 byte_text(*available, ByteUnits::MiBOrGiB) + " are available; refused");
    text.reserve(bytes);
  };
  if (regular) reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    if (pipe) {
      pollfd p{fd.get(), POLLIN, 0};
      const int ready = ::poll(&p, 1, kPipeTimeoutSeconds * 1000);
      if (ready < 0 && errno == EINTR) {
        if (const int signal = stop_signal(); signal > 0)
          throw fail(std::string("stopped by ") + stop_signal_name(signal) + " while waiting for input");
        continue;
      }
      if (ready < 0) throw fail(std::string("cannot wait for input (") + std::strerror(errno) + ")");
      if (ready == 0)
        throw fail("no data from the pipe for " + std::to_string(kPipeTimeoutSeconds) +
                   " s (is anything writing to it?); refused rather than waiting forever");
    }
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) throw fail(std::string("read error (") + std::strerror(errno) + ")");
    if (got == 0) break;
    if (text.size() + static_cast<std::size_t>(got) > limit)
      throw fail(std::string("more than ") + byte_text(limit, ByteUnits::Exact) + " of input, the limit for an " +
                 what + "; refused");
    if (text.size() + static_cast<std::size_t>(got) > text.capacity())  // grows as a string would, checked
      reserve(std::min(limit, std::max(2 * text.capacity(), text.size() + static_cast<std::size_t>(got))));
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

void check_text_encoding(std::string& text, const std::string& path) {
  const auto starts = [&](const char* prefix, std::size_t n) {
    return text.size() >= n && text.compare(0, n, prefix, n) == 0;
  };
  if (starts("\xEF\xBB\xBF", 3)) text.erase(0, 3);  // UTF-8 byte-order mark: the text itself is fine
  const bool utf16_mark = starts("\xFF\xFE", 2) || starts("\xFE\xFF", 2);
  const std::size_t nul = text.find('\0');
  if (!utf16_mark && nul == std::string::npos) return;
  const std::string shown = shown_path(path);
  // UTF-16 stores ASCII text as one NUL byte beside each character.
  std::size_t nuls = 0;
  const std::size_t sample = std::min<std::size_t>(text.size(), 4096);
  for (std::size_t i = 0; i < sample; ++i) nuls += text[i] == '\0';
  if (utf16_mark || nuls * 3 >= sample)
    throw SceneError(shown + ": is UTF-16 encoded text (" +
                     (utf16_mark ? std::string("byte-order mark ") + (text[0] == '\xFF' ? "FF FE" : "FE FF")
                                 : std::string("NUL bytes between the characters")) +
                     "); save it as UTF-8 or ASCII");
  throw SceneError(shown + ":" + std::to_string(obj_line_at(text, nul)) +
                   ": a NUL byte (binary data, not a text file)");
}

}  // namespace depthsort::app
