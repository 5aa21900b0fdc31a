// `streamcheck trace convert IN OUT [--to text|binary]` and
// `streamcheck trace dump IN`. Errors name the file and the byte offset;
// exit code 2 on any usage or input error (cli/exit_code.h).
#include "cli/cmd_trace.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/exit_code.h"
#include "runtime/trace/path_map.h"
#include "runtime/trace/trace_io.h"

namespace streamcheck::cli {
namespace {

struct TraceCommandOptions {
  std::string in;
  std::string out;
  std::string to;  // empty: the other form of `in`
  std::vector<std::string> path_maps;
};

void Fail(const char* command, const std::string& message) {
  std::fprintf(stderr, "streamcheck trace %s: %s\n", command, message.c_str());
  SetExitCode(kExitUsage);
}

void RunConvert(const TraceCommandOptions& options) {
  std::string error;
  TraceFormat to;
  if (!options.to.empty()) {
    if (!TraceFormatFromName(options.to, &to)) return Fail("convert", "--to: " + options.to);
  } else {
    auto source = OpenTrace(options.in, &error);
    if (!source) return Fail("convert", error);
    to = source->format() == TraceFormat::kBinary ? TraceFormat::kText : TraceFormat::kBinary;
  }
  PathMap paths;
  for (const std::string& spec : options.path_maps)
    if (!paths.Add(spec, &error)) return Fail("convert", "--path-map " + error);
  if (!ConvertTrace(options.in, options.out, to, &error, &paths)) return Fail("convert", error);
  SetExitCode(kExitOk);
}

void RunDump(const TraceCommandOptions& options) {
  std::string error;
  auto source = OpenTrace(options.in, &error);
  if (!source) return Fail("dump", error);
  auto writer = CreateTextTraceWriter(stdout);
  bool ok = CopyTrace(source.get(), writer.get(), &error);
  writer->Close();
  if (!ok) return Fail("dump", error);
  SetExitCode(kExitOk);
}

}  // namespace

void AddTraceCommand(CLI::App& app) {
  auto options = std::make_shared<TraceCommandOptions>();
  CLI::App* trace = app.add_subcommand(
      "trace", "Convert and print trace files (binary .sctrace and the text form; see "
               "docs/internals/trace-format.md)");
  trace->require_subcommand(1);

  CLI::App* convert = trace->add_subcommand(
      "convert", "Convert a trace between the binary and the text form. Records before any "
                 "damage in IN are still written to OUT.");
  convert->add_option("IN", options->in, "Trace to read (either form, detected)")->required();
  convert->add_option("OUT", options->out, "File to write")->required();
  convert
      ->add_option("--to", options->to, "Form of OUT (default: the other form of IN)")
      ->check(CLI::IsMember({"text", "binary"}));
  convert->add_option("--path-map", options->path_maps,
                      "OLD=NEW: rewrite the paths the trace recorded under OLD to NEW (an empty NEW makes them "
                      "relative; the longest OLD that matches wins; repeatable), e.g. to make a trace recorded in "
                      "another checkout name the files of this one");
  convert->callback([options] { RunConvert(*options); });

  CLI::App* dump = trace->add_subcommand("dump", "Print a trace in the text form to stdout");
  dump->add_option("IN", options->in, "Trace to read (either form, detected)")->required();
  dump->callback([options] { RunDump(*options); });
}

}  // namespace streamcheck::cli
