// Reading and writing trace files: the binary form the tracer writes
// (.sctrace: versioned, append-only CRC-checked blocks) and the text form
// people write by hand (one record per line). docs/internals/trace-format.md describes
// both. Readers detect the form from the first bytes, so every consumer
// (replay, convert, tests) goes through OpenTrace and never cares which it got.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/trace_record.h"

namespace streamcheck {

class PathMap;

enum class TraceFormat { kBinary, kText };
std::string_view TraceFormatName(TraceFormat format);  // "binary" / "text"
bool TraceFormatFromName(std::string_view name, TraceFormat* format);

// Binary traces start with these bytes; anything else is read as text.
// (0x89 is not valid leading text, and "\r\n" / 0x1a catch newline-mangling
// transfers, as in PNG.)
inline constexpr std::string_view kBinaryTraceMagic{"\x89SCTRC\r\n", 8};
// Given the first bytes of a file (any number, even 0), says which form it is.
TraceFormat DetectTraceFormat(std::string_view first_bytes);

// Where records go. Writers are NOT thread-safe: the tracer serializes calls.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Returns false once an output error happened (then error() says what);
  // records appended after that are dropped.
  virtual bool Append(const TraceRecord& record) = 0;
  // Writes everything appended so far to the output (the binary writer emits
  // the buffered records as one whole block with a single write()).
  virtual bool Flush() = 0;
  // Flushes when the oldest unflushed record was appended more than `ms`
  // milliseconds ago. Cheap when there is nothing to do; the tracer calls it
  // from its callbacks so a crash loses little even on a slow trace.
  virtual bool FlushIfOlderThan(uint64_t ms) = 0;
  // Flushes and closes the output (a path writer closes its file). Idempotent;
  // the destructor calls it too, but only Close() reports errors.
  virtual bool Close() = 0;
  virtual const std::string& error() const = 0;
};

// Where records come from: a streaming reader with constant memory. Next()
// reuses *out (clearing it first, keeping vector capacity).
class TraceSource {
 public:
  enum class Status { kRecord, kEnd, kError };
  virtual ~TraceSource() = default;
  virtual Status Next(TraceRecord* out) = 0;
  // After kError: a complete message naming the input, the byte offset and the
  // problem, e.g. "t.sctrace: block at offset 1234: CRC mismatch" or
  // "t.txt:12:7 (byte 301): unknown field 'sream'". Every record before the
  // problem was delivered; Next() keeps returning kError.
  virtual const std::string& error() const = 0;
  // Byte offset in the input: after kError, where the problem is (the start of
  // the damaged block or line); otherwise how far the reader has consumed.
  virtual uint64_t offset() const = 0;
  // Records delivered so far.
  virtual uint64_t records_read() const = 0;
  virtual TraceFormat format() const = 0;
};

// --- Reading -------------------------------------------------------------

// Opens a trace file of either form. Returns null (and sets *error) only when
// the file cannot be opened; problems with its contents come from Next().
std::unique_ptr<TraceSource> OpenTrace(const std::string& path, std::string* error);
// Reads a trace held in memory (tests, the fuzzer). `name` prefixes errors.
std::unique_ptr<TraceSource> OpenTraceFromString(std::string contents,
                                                 std::string name = "<memory>");

// Convenience for tests and small tools: parses a whole text trace. Strings
// written as literals (name="k") become define_string records, as in files.
bool ParseTextTrace(std::string_view text, std::vector<TraceRecord>* records,
                    std::string* error);
// Renders records in the text form (exactly what the text writer writes).
std::string FormatTextTrace(const std::vector<TraceRecord>& records);

// --- Writing -------------------------------------------------------------

struct BinaryWriterOptions {
  // A block is written once its payload reaches this size (or on Flush()).
  size_t block_bytes = 64 * 1024;
};

// Creates (truncates) `path`. Return null and set *error when it cannot be opened.
std::unique_ptr<TraceSink> CreateBinaryTraceWriter(const std::string& path, std::string* error,
                                                   BinaryWriterOptions options = {});
std::unique_ptr<TraceSink> CreateTextTraceWriter(const std::string& path, std::string* error);
std::unique_ptr<TraceSink> CreateTraceWriter(const std::string& path, TraceFormat format,
                                             std::string* error);
// Writers into memory (appends to *out, which must outlive the writer) or to
// an open FILE* (not closed by the writer; fflush'ed on every Flush()).
std::unique_ptr<TraceSink> CreateBinaryTraceWriter(std::string* out,
                                                   BinaryWriterOptions options = {});
std::unique_ptr<TraceSink> CreateBinaryTraceWriter(std::FILE* file,
                                                   BinaryWriterOptions options = {});
std::unique_ptr<TraceSink> CreateTextTraceWriter(std::string* out);
std::unique_ptr<TraceSink> CreateTextTraceWriter(std::FILE* file);

// --- Converting ----------------------------------------------------------

// Copies every record of `in` into `out`. On a read error the records before
// it are still written (and flushed); returns false with *error set.
// With `paths`, the paths the trace's strings name are rewritten (path_map.h).
bool CopyTrace(TraceSource* in, TraceSink* out, std::string* error, const PathMap* paths = nullptr);
// Converts the file at in_path into out_path written in `to`.
bool ConvertTrace(const std::string& in_path, const std::string& out_path, TraceFormat to,
                  std::string* error, const PathMap* paths = nullptr);

}  // namespace streamcheck
