// The PyTorch plugin's Python stacks (tracer/frameworks/pytorch/python_stack.h), in an
// embedded CPython: what the stacks say, and that a stack seen before is
// recognized from the frames read in place (python_frames.h), without the
// GIL, where the running CPython's layout is known. A module of the test's
// own, `probe`, calls CurrentPythonStack from Python code as an op would.
#include <Python.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "tracer/frameworks/pytorch/python_frames.h"
#include "tracer/frameworks/pytorch/python_stack.h"

namespace streamcheck::pytorch {
namespace {

struct InternedFrame {
  std::string function, file;
  uint32_t line;
};
std::vector<std::vector<InternedFrame>> g_stacks;  // id - 1

uint32_t InternStack(const StreamcheckFrame* frames, size_t count) {
  std::vector<InternedFrame> stack;
  for (size_t i = 0; i < count; ++i) stack.push_back({frames[i].function, frames[i].file, frames[i].line});
  g_stacks.push_back(std::move(stack));
  return static_cast<uint32_t>(g_stacks.size());
}
const StreamcheckFrameworkHooks kHooks = {STREAMCHECK_FRAMEWORK_HOOKS_VERSION, nullptr, InternStack, nullptr, nullptr,
                                          nullptr, nullptr};

// probe.stack(release_gil, take_gil=True): the stack id, asked for as the
// op observer asks (GIL released by the op's dispatch) or as the allocator
// hook does (no taking the GIL).
PyObject* ProbeStack(PyObject*, PyObject* args) {
  int release_gil = 0, take_gil = 1;
  if (!PyArg_ParseTuple(args, "p|p", &release_gil, &take_gil)) return nullptr;
  uint32_t id = 0;
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS id = CurrentPythonStack(kHooks, take_gil != 0);
    Py_END_ALLOW_THREADS
  } else {
    id = CurrentPythonStack(kHooks, take_gil != 0);
  }
  return PyLong_FromUnsignedLong(id);
}
PyMethodDef kProbeMethods[] = {{"stack", ProbeStack, METH_VARARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
PyModuleDef kProbeModule = {PyModuleDef_HEAD_INIT, "probe", nullptr, -1, kProbeMethods, nullptr, nullptr, nullptr, nullptr};
PyObject* InitProbe() { return PyModule_Create(&kProbeModule); }

class PythonStackTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    PyImport_AppendInittab("probe", InitProbe);
    Py_Initialize();
  }

  // Runs `source` as the program's file `path`; returns its global `ids`.
  std::vector<uint32_t> Run(const std::string& source, const char* path = "/home/user/train.py") {
    const PythonStackCounts before = CurrentPythonStackCounts();
    PyObject* code = Py_CompileString(source.c_str(), path, Py_file_input);
    EXPECT_NE(code, nullptr);
    PyObject* globals = PyDict_New();
    PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins());
    PyObject* result = code ? PyEval_EvalCode(code, globals, globals) : nullptr;
    if (result == nullptr) PyErr_Print();
    EXPECT_NE(result, nullptr);
    std::vector<uint32_t> ids;
    if (PyObject* list = PyDict_GetItemString(globals, "ids"))
      for (Py_ssize_t i = 0; i < PyList_Size(list); ++i) ids.push_back(PyLong_AsUnsignedLong(PyList_GetItem(list, i)));
    Py_XDECREF(result);
    Py_DECREF(globals);
    Py_XDECREF(code);
    const PythonStackCounts after = CurrentPythonStackCounts();
    in_place_ = after.in_place - before.in_place;
    through_api_ = after.through_api - before.through_api;
    return ids;
  }

  // Whether this CPython's frames can be read in place (3.11, 3.12).
  static bool LayoutKnown() {
    int major = 0, minor = 0;
    return ParsePythonVersion(Py_GetVersion(), &major, &minor) && PythonFrameLayoutFor(major, minor) != nullptr;
  }

  // Expects `calls` stacks asked for, `new_stacks` of them walked through the
  // API and the rest recognized in place, where the layout is known.
  void ExpectWalks(uint64_t calls, uint64_t new_stacks) const {
    if (LayoutKnown()) {
      EXPECT_EQ(through_api_, new_stacks);
      EXPECT_EQ(in_place_, calls - new_stacks);
    } else {
      EXPECT_EQ(through_api_, calls);
      EXPECT_EQ(in_place_, 0u);
    }
  }

  static const std::vector<InternedFrame>& StackOf(uint32_t id) { return g_stacks.at(id - 1); }

  // Runs `source`, which asks for the stack of one call site `calls` times;
  // expects one stack, walked through the API once, and returns its frames.
  std::vector<InternedFrame> OneStackOf(const std::string& source, size_t calls) {
    const auto ids = Run(source);
    EXPECT_EQ(ids.size(), calls);
    if (ids.size() != calls || ids[0] == 0) return {};
    for (uint32_t id : ids) EXPECT_EQ(id, ids[0]);
    ExpectWalks(calls, 1);
    return StackOf(ids[0]);
  }

  uint64_t in_place_ = 0, through_api_ = 0;
};

TEST_F(PythonStackTest, NamesEachFrameOfTheUsersCode) {
  const auto ids = Run(
      "import probe\n"
      "def inner():\n"
      "    return probe.stack(True)\n"
      "def outer():\n"
      "    return inner()\n"
      "ids = [outer()]\n");
  ASSERT_EQ(ids.size(), 1u);
  ASSERT_NE(ids[0], 0u);
  const auto& stack = StackOf(ids[0]);
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_EQ(stack[0].function, "inner");
  EXPECT_EQ(stack[0].line, 3u);
  EXPECT_EQ(stack[1].function, "outer");
  EXPECT_EQ(stack[1].line, 5u);
  EXPECT_EQ(stack[2].function, "<module>");
  EXPECT_EQ(stack[2].line, 6u);
  for (const auto& frame : stack) EXPECT_EQ(frame.file, "/home/user/train.py");
}

TEST_F(PythonStackTest, RecognizesARepeatedStackWithoutTheApi) {
  const auto stack = OneStackOf(
      "import probe\n"
      "def step():\n"
      "    return probe.stack(True)\n"
      "ids = []\n"
      "for _ in range(5):\n"
      "    ids.append(step())\n",
      5);
  EXPECT_EQ(stack.size(), 2u);
}

TEST_F(PythonStackTest, TellsCallSitesApart) {
  const auto ids = Run(
      "import probe\n"
      "def step():\n"
      "    return probe.stack(True)\n"
      "ids = []\n"
      "for _ in range(3):\n"
      "    ids.append(step())\n"
      "    ids.append(step())\n");
  ASSERT_EQ(ids.size(), 6u);
  EXPECT_NE(ids[0], ids[1]);
  for (size_t i = 2; i < ids.size(); ++i) EXPECT_EQ(ids[i], ids[i % 2]);
  EXPECT_EQ(StackOf(ids[0])[1].line, 6u);
  EXPECT_EQ(StackOf(ids[1])[1].line, 7u);
  ExpectWalks(6, 2);
}

// A builtin calling back into Python (sorted's key) puts an entry frame of
// the interpreter between the two Python frames (3.12), which the API skips.
TEST_F(PythonStackTest, FramesCalledBackFromCCode) {
  const auto stack = OneStackOf(
      "import probe\n"
      "ids = []\n"
      "for _ in range(3):\n"
      "    sorted([2, 1], key=lambda v: ids.append(probe.stack(True)) or v)\n",
      6);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0].function, "<lambda>");
  EXPECT_EQ(stack[1].function, "<module>");
}

TEST_F(PythonStackTest, GeneratorFrames) {
  const auto stack = OneStackOf(
      "import probe\n"
      "def batches():\n"
      "    for _ in range(4):\n"
      "        yield probe.stack(True)\n"
      "ids = []\n"
      "for b in batches():\n"
      "    ids.append(b)\n",
      4);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0].function, "batches");
}

// Deeper than the 32 frames kept: the innermost are.
TEST_F(PythonStackTest, DeepStacksKeepTheInnermostFrames) {
  const auto stack = OneStackOf(
      "import probe\n"
      "def down(n):\n"
      "    return probe.stack(True) if n == 0 else down(n - 1)\n"
      "ids = [down(40) for _ in range(3)]\n",
      3);
  ASSERT_EQ(stack.size(), 32u);
  for (const auto& frame : stack) EXPECT_EQ(frame.function, "down");
}

// The allocator's hook may not take the GIL: a stack seen before is still
// found (in place), a new one is not.
TEST_F(PythonStackTest, WithoutTakingTheGilOnlyKnownStacks) {
  const auto ids = Run(
      "import probe\n"
      "def site(take_gil):\n"
      "    return probe.stack(True, take_gil)\n"
      "ids = []\n"
      "for take_gil in (False, True, False):\n"
      "    ids.append(site(take_gil))\n");
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0], 0u);
  EXPECT_NE(ids[1], 0u);
  EXPECT_EQ(ids[2], LayoutKnown() ? ids[1] : 0u);
}

TEST_F(PythonStackTest, HoldingTheGilWithoutTakingIt) {
  const auto ids = Run(
      "import probe\n"
      "ids = [probe.stack(False, False) for _ in range(2)]\n");
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_NE(ids[0], 0u);
  EXPECT_EQ(ids[1], ids[0]);
}

TEST_F(PythonStackTest, ThreadWithoutPythonHasNoStack) {
  uint32_t id = 1;
  std::thread([&] { id = CurrentPythonStack(kHooks, /*take_gil=*/true); }).join();
  EXPECT_EQ(id, 0u);
}

TEST(PythonVersion, Parses) {
  int major = 0, minor = 0;
  ASSERT_TRUE(ParsePythonVersion("3.12.3 (main, Apr 10 2024) [GCC 13.2.0]", &major, &minor));
  EXPECT_EQ(major, 3);
  EXPECT_EQ(minor, 12);
  EXPECT_FALSE(ParsePythonVersion("3", &major, &minor));
  EXPECT_FALSE(ParsePythonVersion("3.", &major, &minor));
  EXPECT_FALSE(ParsePythonVersion("python", &major, &minor));
  EXPECT_FALSE(ParsePythonVersion(nullptr, &major, &minor));
  EXPECT_EQ(PythonFrameLayoutFor(3, 10), nullptr);
  EXPECT_EQ(PythonFrameLayoutFor(3, 13), nullptr);
  EXPECT_NE(PythonFrameLayoutFor(3, 11), nullptr);
  EXPECT_NE(PythonFrameLayoutFor(3, 12), nullptr);
}

}  // namespace
}  // namespace streamcheck::pytorch
