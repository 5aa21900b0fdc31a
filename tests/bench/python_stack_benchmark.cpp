// The PyTorch plugin's Python stack per op (tracer/frameworks/pytorch/python_stack.h),
// in an embedded CPython, as an op of a training step asks for it: the same
// few call sites, some 20 frames deep (module calls nest three frames each),
// recognized from frames read in place. Prints ns per stack, net of the
// probe's own Python call (a probe that returns at once).
//   python_stack_benchmark [CALLS] [DEPTH]
#include <Python.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tracer/frameworks/pytorch/python_stack.h"

namespace {

using streamcheck::pytorch::CurrentPythonStack;

uint32_t g_next_id = 0;
uint32_t InternStack(const StreamcheckFrame*, size_t) { return ++g_next_id; }
const StreamcheckFrameworkHooks kHooks = {STREAMCHECK_FRAMEWORK_HOOKS_VERSION, nullptr, InternStack, nullptr, nullptr,
                                          nullptr, nullptr};

PyObject* Stack(PyObject*, PyObject*) { return PyLong_FromUnsignedLong(CurrentPythonStack(kHooks, true)); }
PyObject* Nothing(PyObject*, PyObject*) { return PyLong_FromUnsignedLong(0); }
PyMethodDef kMethods[] = {{"stack", Stack, METH_NOARGS, nullptr},
                          {"nothing", Nothing, METH_NOARGS, nullptr},
                          {nullptr, nullptr, 0, nullptr}};
PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "probe", nullptr, -1, kMethods, nullptr, nullptr, nullptr, nullptr};
PyObject* InitProbe() { return PyModule_Create(&kModule); }

// Seconds for `calls` calls of probe.NAME from 8 call sites at `depth`.
double Time(const char* name, long calls, int depth) {
  const std::string source =
      "import probe, time\n"
      "def op(k):\n"
      "    f = probe." + std::string(name) + "\n"
      "    if k == 0: return f()\n"
      "    if k == 1: return f()\n"
      "    if k == 2: return f()\n"
      "    if k == 3: return f()\n"
      "    if k == 4: return f()\n"
      "    if k == 5: return f()\n"
      "    if k == 6: return f()\n"
      "    return f()\n"
      "def nest(d, n):\n"
      "    if d > 0: return nest(d - 1, n)\n"
      "    start = time.perf_counter()\n"
      "    for i in range(n): op(i & 7)\n"
      "    return time.perf_counter() - start\n"
      "nest(" + std::to_string(depth) + ", 1000)\n"
      "seconds = nest(" + std::to_string(depth) + ", " + std::to_string(calls) + ")\n";
  PyObject* globals = PyDict_New();
  PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins());
  PyObject* result = PyRun_String(source.c_str(), Py_file_input, globals, globals);
  if (result == nullptr) {
    PyErr_Print();
    std::exit(1);
  }
  const double seconds = PyFloat_AsDouble(PyDict_GetItemString(globals, "seconds"));
  Py_DECREF(result);
  Py_DECREF(globals);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 2000000;
  const int depth = argc > 2 ? std::atoi(argv[2]) : 18;
  PyImport_AppendInittab("probe", InitProbe);
  Py_Initialize();
  double best_stack = 1e9, best_nothing = 1e9;
  for (int round = 0; round < 5; ++round) {
    best_nothing = std::min(best_nothing, Time("nothing", calls, depth));
    best_stack = std::min(best_stack, Time("stack", calls, depth));
  }
  std::printf("python_stack: depth %d, %.1f ns per stack (probe call alone %.1f ns), %u stacks interned\n",
              depth + 3, (best_stack - best_nothing) * 1e9 / static_cast<double>(calls),
              best_nothing * 1e9 / static_cast<double>(calls), g_next_id);
  return 0;
}
