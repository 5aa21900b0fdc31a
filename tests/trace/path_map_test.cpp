// PathMap: OLD=NEW prefixes as -fdebug-prefix-map, over findings and traces.
#include "runtime/trace/path_map.h"

#include <gtest/gtest.h>

namespace streamcheck {
namespace {

PathMap Map(std::initializer_list<const char*> specs) {
  PathMap map;
  std::string error;
  for (const char* spec : specs) EXPECT_TRUE(map.Add(spec, &error)) << spec << ": " << error;
  return map;
}

TEST(PathMap, RewritesWholeFoldersOnly) {
  const PathMap map = Map({"/ci/src=/home/me/app"});
  EXPECT_EQ(map.Map("/ci/src/kernels/a.cu"), "/home/me/app/kernels/a.cu");
  EXPECT_EQ(map.Map("/ci/src"), "/home/me/app");
  // A folder whose name merely starts with OLD's is another folder.
  EXPECT_EQ(map.Map("/ci/src2/a.cu"), "/ci/src2/a.cu");
  EXPECT_EQ(map.Map("relative/a.cu"), "relative/a.cu");
}

TEST(PathMap, AnEmptyNewMakesPathsRelative) {
  const PathMap map = Map({"/work/main/="});
  EXPECT_EQ(map.Map("/work/main/tests/gpu/x.cu"), "tests/gpu/x.cu");
  EXPECT_EQ(map.Map("/work/main"), ".");
}

TEST(PathMap, TheLongestOldWinsWhateverTheOrder) {
  const PathMap map = Map({"/work/main=", "/work/main/.gpu/host/src=", "/other=/o/"});
  EXPECT_EQ(map.Map("/work/main/.gpu/host/src/tests/a.py"), "tests/a.py");
  EXPECT_EQ(map.Map("/work/main/tests/b.py"), "tests/b.py");
  EXPECT_EQ(map.Map("/other/c.cu"), "/o/c.cu");
}

TEST(PathMap, RefusesWhatIsNotAMapping) {
  PathMap map;
  std::string error;
  EXPECT_FALSE(map.Add("no-equals", &error));
  EXPECT_NE(error.find("OLD=NEW"), std::string::npos) << error;
  EXPECT_FALSE(map.Add("=/x", &error));
  EXPECT_TRUE(map.Add("/a=/b", &error));
  EXPECT_FALSE(map.Add("/a/=/c", &error));  // the same folder twice
  EXPECT_NE(error.find("twice"), std::string::npos) << error;
}

TEST(PathMap, ReachesEveryFrameOfAFinding) {
  Finding f;
  FindingAccess a;
  a.stack = {SourceFrame("main", "/ci/src/a.cu", 3)};
  a.stream_origin.created_at = {SourceFrame("main", "/ci/src/b.cu", 4)};
  a.stream_origin.first_used_at = {SourceFrame("main", "/ci/src/c.cu", 5)};
  a.event_origin.created_at = {SourceFrame("main", "/ci/src/d.cu", 6)};
  f.accesses = {a, a};
  f.syncs = {a};
  f.buffer.allocation_stack = {SourceFrame("main", "/ci/src/e.cu", 7), ResolvedFrame{}};
  Map({"/ci/src="}).Apply(&f);
  for (const FindingAccess* x : {&f.accesses[0], &f.accesses[1], &f.syncs[0]}) {
    EXPECT_EQ(x->stack[0].file, "a.cu");
    EXPECT_EQ(x->stream_origin.created_at[0].file, "b.cu");
    EXPECT_EQ(x->stream_origin.first_used_at[0].file, "c.cu");
    EXPECT_EQ(x->event_origin.created_at[0].file, "d.cu");
  }
  EXPECT_EQ(f.buffer.allocation_stack[0].file, "e.cu");
  EXPECT_EQ(f.buffer.allocation_stack[1].file, "");  // a frame without a file stays so
}

TEST(PathMap, RewritesATracesStringDefinitionsOnly) {
  const PathMap map = Map({"/ci/src="});
  TraceRecord string;
  string.op = OpCode::kDefineString;
  string.text = "/ci/src/a.cu";
  map.Apply(&string);
  EXPECT_EQ(string.text, "a.cu");
  TraceRecord info;
  info.op = OpCode::kProcessInfo;
  info.text = "/ci/src/run.sh";
  map.Apply(&info);
  EXPECT_EQ(info.text, "/ci/src/run.sh");
}

}  // namespace
}  // namespace streamcheck
