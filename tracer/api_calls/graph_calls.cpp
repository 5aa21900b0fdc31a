// Stream capture and the graph API. Kernel nodes added through the API get
// their arguments from the nested driver call (kernel_launches.cpp).

#include "tracer/api_calls/api_call.h"
#include "tracer/api_calls/cuda_call_params.h"
#include "tracer/api_calls/graph_host_nodes.h"
#include "tracer/api_calls/kernel_launches.h"

namespace streamcheck::tracer {
namespace {

TraceRecord NodeRecord(const ApiCall& c, OpCode node_op, cudaGraphNode_t* node, cudaGraph_t graph,
                       const cudaGraphNode_t* deps, size_t n) {
  TraceRecord r = c.Record(OpCode::kGraphAddNode);
  r.node_op = node_op;
  r.node = ToHandle(*node);
  r.graph = ToHandle(graph);
  for (size_t i = 0; i < n; ++i) r.deps.push_back(ToHandle(deps[i]));
  return r;
}

// cudaStreamBeginCapture and cudaStreamBeginCaptureToGraph.
TraceRecord CaptureRecord(const ApiCall& c, cudaStream_t stream, cudaStreamCaptureMode mode) {
  TraceRecord r = c.Record(OpCode::kStreamBeginCapture);
  r.stream = c.Stream(stream);
  r.flags = static_cast<uint32_t>(mode);
  return r;
}

TraceRecord MemcpyNodeRecord(const ApiCall& c, const cudaGraphAddMemcpyNode_v10000_params& p) {
  TraceRecord r = NodeRecord(c, OpCode::kMemcpy, p.pGraphNode, p.graph, p.pDependencies, p.numDependencies);
  const cudaMemcpy3DParms* m = p.pCopyParams;
  if (m == nullptr || m->srcArray || m->dstArray) {
    c.tracer.CountUnmodeled("cudaGraphAddMemcpyNode with CUDA arrays");
    r.node_op = OpCode::kHostFunc;  // keeps the node and its dependencies, touches nothing
    return r;
  }
  r.dst = ToHandle(m->dstPtr.ptr) + m->dstPos.x;
  r.src = ToHandle(m->srcPtr.ptr) + m->srcPos.x;
  r.size = m->extent.width;
  const uint64_t rows = uint64_t(m->extent.height) * (m->extent.depth ? m->extent.depth : 1);
  r.height = rows > 1 ? rows : 0;
  r.dst_pitch = rows > 1 ? m->dstPtr.pitch : 0;
  r.src_pitch = rows > 1 ? m->srcPtr.pitch : 0;
  r.copy_kind = static_cast<CopyKind>(m->kind);
  return r;
}

TraceRecord MemsetNodeRecord(const ApiCall& c, const cudaGraphAddMemsetNode_v10000_params& p) {
  TraceRecord r = NodeRecord(c, OpCode::kMemset, p.pGraphNode, p.graph, p.pDependencies, p.numDependencies);
  const cudaMemsetParams* m = p.pMemsetParams;
  r.dst = ToHandle(m->dst);
  r.size = uint64_t(m->width) * m->elementSize;
  r.height = m->height > 1 ? m->height : 0;
  r.dst_pitch = m->height > 1 ? m->pitch : 0;
  return r;
}

// Edges added between nodes that exist: one record per edge.
void EmitAddedDependencies(const ApiCall& c, const cudaGraphAddDependencies_v12030_params& p) {
  for (size_t i = 0; i < p.numDependencies; ++i) {
    TraceRecord d = c.Record(OpCode::kGraphAddDependency);
    d.graph = ToHandle(p.graph);
    d.node = ToHandle(p.to[i]);
    d.deps.push_back(ToHandle(p.from[i]));
    c.tracer.Emit(d);
  }
}

}  // namespace

bool DecodeGraphCall(const ApiCall& c, ApiCallbackId cbid) {
  Tracer& t = c.tracer;
  TraceRecord r;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000: {
      const auto& p = c.params<cudaStreamBeginCapture_v10000_params>();
      r = CaptureRecord(c, p.stream, p.mode);
      break;
    }
    // Capture into a graph that exists (a conditional node's body, say):
    // the stream's work joins that graph after the nodes given.
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030: {
      const auto& p = c.params<cudaStreamBeginCaptureToGraph_v12030_params>();
      r = CaptureRecord(c, p.stream, p.mode);
      r.graph = ToHandle(p.graph);
      for (size_t i = 0; p.dependencies != nullptr && i < p.numDependencies; ++i)
        r.deps.push_back(ToHandle(p.dependencies[i]));
      break;
    }
    // pGraph may be null where the capture went into a graph that exists.
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000: {
      const auto& p = c.params<cudaStreamEndCapture_v10000_params>();
      r = c.Record(OpCode::kStreamEndCapture);
      r.stream = c.Stream(p.stream);
      r.graph = c.result() == cudaSuccess && p.pGraph != nullptr ? ToHandle(*p.pGraph) : 0;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphCreate_v10000:
      r = c.Record(OpCode::kGraphCreate);
      r.graph = ToHandle(*c.params<cudaGraphCreate_v10000_params>().pGraph);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddKernelNode_v10000: {
      const auto& p = c.params<cudaGraphAddKernelNode_v10000_params>();
      r = NodeRecord(c, OpCode::kKernelLaunch, p.pGraphNode, p.graph, p.pDependencies, p.numDependencies);
      TakePendingKernel(c, &r);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddMemcpyNode_v10000:
      r = MemcpyNodeRecord(c, c.params<cudaGraphAddMemcpyNode_v10000_params>());
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddMemsetNode_v10000:
      r = MemsetNodeRecord(c, c.params<cudaGraphAddMemsetNode_v10000_params>());
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddHostNode_v10000: {
      // id: its runs are followed, one per launch (graph_host_nodes.h).
      const auto& p = c.params<cudaGraphAddHostNode_v10000_params>();
      r = NodeRecord(c, OpCode::kHostFunc, p.pGraphNode, p.graph, p.pDependencies, p.numDependencies);
      r.id = GraphHostNodeIdOfThisCall();
      EndGraphHostNodeCall(*p.pGraphNode);
      break;
    }
    // The node keeps its id; only the trampoline's context changed.
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphHostNodeSetParams_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecHostNodeSetParams_v10020:
      EndGraphHostNodeCall(nullptr);
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddEmptyNode_v10000: {
      const auto& p = c.params<cudaGraphAddEmptyNode_v10000_params>();
      r = NodeRecord(c, OpCode::kHostFunc, p.pGraphNode, p.graph, p.pDependencies, p.numDependencies);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddDependencies_v12030:
      EmitAddedDependencies(c, c.params<cudaGraphAddDependencies_v12030_params>());
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithFlags_v11040: {
      const auto& p = c.params<cudaGraphInstantiate_v12000_params>();
      r = c.Record(OpCode::kGraphInstantiate);
      r.graph_exec = ToHandle(*p.pGraphExec);
      r.graph = ToHandle(p.graph);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecUpdate_v10020: {
      const auto& p = c.params<cudaGraphExecUpdate_v10020_params>();
      r = c.Record(OpCode::kGraphExecUpdate);
      r.graph_exec = ToHandle(p.hGraphExec);
      r.graph = ToHandle(p.hGraph);
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000: {
      const auto& p = c.params<cudaGraphLaunch_v10000_params>();
      r = c.Record(OpCode::kGraphLaunch);
      r.graph_exec = ToHandle(p.graphExec);
      r.stream = c.Stream(p.stream);
      t.Emit(r);
      GraphLaunchLeft();  // its host nodes may run from here (graph_host_nodes.h)
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphDestroy_v10000:
      r = c.Record(OpCode::kGraphDestroy);
      r.graph = ToHandle(c.params<cudaGraphDestroy_v10000_params>().graph);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecDestroy_v10000:
      r = c.Record(OpCode::kGraphExecDestroy);
      r.graph_exec = ToHandle(c.params<cudaGraphExecDestroy_v10000_params>().graphExec);
      break;
    default:
      return false;
  }
  t.Emit(r);
  return true;
}

}  // namespace streamcheck::tracer
