// Where trace bytes come from and go to: files (by path, fd or FILE*) and
// memory. The readers and writers above this see only these two interfaces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace streamcheck::trace_internal {

class ByteInput {
 public:
  virtual ~ByteInput() = default;
  // Makes the next up to `n` bytes available at *data without consuming them;
  // returns how many are available (fewer than n only at the end of input or
  // on a read error). *data stays valid until the next call.
  virtual size_t Peek(size_t n, const uint8_t** data) = 0;
  // Consumes n bytes (n <= what the last Peek returned).
  virtual void Skip(size_t n) = 0;
  // Non-empty after a read error (as opposed to a clean end of input).
  virtual const std::string& error() const = 0;
};

std::unique_ptr<ByteInput> MakeMemoryInput(std::string contents);
// Takes ownership of `file` and fcloses it.
std::unique_ptr<ByteInput> MakeFileInput(std::FILE* file);
// Reads a regular file (not yet read from) through a mapping of a
// `window_bytes` window that slides along it; a window grows to hold a longer
// Peek. Returns nullptr, leaving `file` to the caller, where the platform or
// the file does not allow it (a pipe, an empty file); otherwise it takes
// ownership of `file`. A file that shrinks while it is read gives a read
// error (error()), not a SIGBUS: a handler for it is installed on first use.
inline constexpr size_t kMappedWindowBytes = size_t{4} << 20;
std::unique_ptr<ByteInput> MakeMappedFileInput(std::FILE* file,
                                               size_t window_bytes = kMappedWindowBytes);

class ByteOutput {
 public:
  virtual ~ByteOutput() = default;
  // Writes all of `bytes` (one write() call where the OS allows) and pushes
  // them out of any user-space buffer, so a crash right after loses nothing.
  virtual bool Write(std::string_view bytes, std::string* error) = 0;
  virtual bool Close(std::string* error) = 0;
};

// Opens (creating/truncating) `path` for raw write()s.
std::unique_ptr<ByteOutput> OpenFileOutput(const std::string& path, std::string* error);
std::unique_ptr<ByteOutput> MakeStdioOutput(std::FILE* file);  // not closed
std::unique_ptr<ByteOutput> MakeStringOutput(std::string* out);

}  // namespace streamcheck::trace_internal
