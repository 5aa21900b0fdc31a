#include "tracer/api_calls/graph_host_nodes.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <new>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "tracer/api_calls/cuda_call_params.h"
#include "tracer/api_calls/host_func_trampoline.h"
#include "tracer/thread_state.h"

namespace streamcheck::tracer {
namespace {

// What one node (or one of its parameter changes) runs.
struct GraphHostNode {
  CUhostFn fn = nullptr;
  void* data = nullptr;
  Tracer* tracer = nullptr;  // the one that traced the node
  uint32_t id = 0;
};

class GraphHostNodeTable {
 public:
  // A context for node `id` running fn(data): one it had, or a new one
  // (`*fresh`); null once kMaxGraphHostNodes are taken. id 0: a new node.
  GraphHostNode* Take(Tracer* t, uint32_t id, CUhostFn fn, void* data, bool* fresh) {
    std::lock_guard<std::mutex> lock(mutex_);
    *fresh = false;
    if (id != 0) {
      auto it = known_.find({id, fn, data});
      if (it != known_.end()) return it->second;
    }
    GraphHostNode* node = nullptr;
    if (!free_.empty()) {
      node = free_.back();
      free_.pop_back();
    } else if (used_ < nodes_.size()) {
      node = &nodes_[used_++];
    } else {
      return nullptr;
    }
    *fresh = true;
    node->fn = fn;
    node->data = data;
    node->tracer = t;
    node->id = id != 0 ? id : kGraphHostNodeIdBit | next_id_++;
    return node;
  }
  // The call that took `node` succeeded: CUDA holds it from now on.
  void Keep(GraphHostNode* node) {
    std::lock_guard<std::mutex> lock(mutex_);
    known_.emplace(Key{node->id, node->fn, node->data}, node);
  }
  void Give(GraphHostNode* node) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(node);
  }
  void NoteNode(CUgraphNode handle, uint32_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (id != 0) node_ids_[handle] = id;
    else node_ids_.erase(handle);  // a handle given again, to a node not followed
  }
  uint32_t IdOf(CUgraphNode handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = node_ids_.find(handle);
    return it == node_ids_.end() ? 0 : it->second;
  }

 private:
  using Key = std::tuple<uint32_t, CUhostFn, void*>;
  std::mutex mutex_;
  std::array<GraphHostNode, kMaxGraphHostNodes> nodes_;
  size_t used_ = 0;
  std::vector<GraphHostNode*> free_;
  std::map<Key, GraphHostNode*> known_;  // bounded by nodes_
  std::unordered_map<CUgraphNode, uint32_t> node_ids_;  // one per followed node added
  uint32_t next_id_ = 1;
};

GraphHostNodeTable& Table() {
  static GraphHostNodeTable* table = new GraphHostNodeTable;  // never destroyed: nodes may run during exit
  return *table;
}

// The cudaGraphLaunch calls between their entry and their record.
class GraphLaunchesInFlight {
 public:
  uint64_t Enter() {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.push_back(next_);
    return next_++;
  }
  void Leave(uint64_t seq) {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.erase(std::remove(in_flight_.begin(), in_flight_.end(), seq), in_flight_.end());
  }
  uint64_t LastEntered() {
    std::lock_guard<std::mutex> lock(mutex_);
    return next_ - 1;
  }
  bool AnyUpTo(uint64_t seq) {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::any_of(in_flight_.begin(), in_flight_.end(), [&](uint64_t s) { return s <= seq; });
  }
  // Launches whose exit never came (the tracer finished meanwhile): no
  // later run waits for them again.
  void ForgetUpTo(uint64_t seq) {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.erase(std::remove_if(in_flight_.begin(), in_flight_.end(), [&](uint64_t s) { return s <= seq; }),
                     in_flight_.end());
  }

 private:
  std::mutex mutex_;
  uint64_t next_ = 1;
  std::vector<uint64_t> in_flight_;  // one per thread at most
};

GraphLaunchesInFlight& Launches() {
  static GraphLaunchesInFlight* launches = new GraphLaunchesInFlight;
  return *launches;
}

// The launch that runs this node entered before the node began: once every
// launch entered by then has left, its record is written.
bool AwaitLaunchRecords() {
  const uint64_t entered = Launches().LastEntered();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (Launches().AnyUpTo(entered)) {
    if (std::chrono::steady_clock::now() > give_up) {
      Launches().ForgetUpTo(entered);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return true;
}

void CUDA_CB GraphHostNodeTrampoline(void* data) {
  const auto* node = static_cast<const GraphHostNode*>(data);
  const bool issued = AwaitLaunchRecords();
  if (issued) EmitHostFuncRunRecord(node->tracer, OpCode::kHostFuncBegin, node->id);
  node->fn(node->data);
  if (issued) EmitHostFuncRunRecord(node->tracer, OpCode::kHostFuncEnd, node->id);
}

ThreadState::GraphHostNodeCall& ThisCall() { return ThisThread().host_node_call; }
GraphHostNode* NodeOfThisCall() { return static_cast<GraphHostNode*>(ThisCall().node); }

// Points the driver call's `params` at a copy of the program's that runs the
// trampoline with a context for node `id` (0: a new node).
void Substitute(const ApiCall& c, const CUDA_HOST_NODE_PARAMS*& params, uint32_t id) {
  auto& call = ThisCall();
  if (call.node != nullptr || params == nullptr || params->fn == nullptr) return;
  GraphHostNode* node = Table().Take(&c.tracer, id, params->fn, params->userData, &call.fresh);
  if (node == nullptr) return;
  call.node = node;
  static_assert(sizeof(CUDA_HOST_NODE_PARAMS) == sizeof(call.params));
  auto* copy = new (call.params) CUDA_HOST_NODE_PARAMS(*params);
  copy->fn = &GraphHostNodeTrampoline;
  copy->userData = node;
  params = copy;
}

void EndCall(bool succeeded) {
  auto& call = ThisCall();
  if (call.node != nullptr && call.fresh) {
    if (succeeded) Table().Keep(NodeOfThisCall());
    else Table().Give(NodeOfThisCall());
  }
  call.node = nullptr;
  call.fresh = false;
  call.active = false;
}

}  // namespace

void FollowGraphHostNodeAtEntry(const ApiCall&, ApiCallbackId cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddHostNode_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphHostNodeSetParams_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecHostNodeSetParams_v10020:
      ThisCall().node = nullptr;
      ThisCall().fresh = false;
      ThisCall().active = true;
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
      if (ThisCall().launch != 0) Launches().Leave(ThisCall().launch);  // one whose exit never came
      ThisCall().launch = Launches().Enter();
      return;
    default:
      return;
  }
}

void FollowGraphHostNodeAtDriverEntry(const ApiCall& c, ApiCallbackId cbid) {
  if (!ThisCall().active) return;
  // The parameter structs are the calls' own, though CUPTI hands them as const.
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddHostNode: {
      auto& p = const_cast<cuGraphAddHostNode_params&>(c.params<cuGraphAddHostNode_params>());
      return Substitute(c, p.nodeParams, 0);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeSetParams: {
      auto& p = const_cast<cuGraphHostNodeSetParams_params&>(c.params<cuGraphHostNodeSetParams_params>());
      if (const uint32_t id = Table().IdOf(p.hNode)) Substitute(c, p.nodeParams, id);
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams: {
      auto& p = const_cast<cuGraphExecHostNodeSetParams_params&>(c.params<cuGraphExecHostNodeSetParams_params>());
      if (const uint32_t id = Table().IdOf(p.hNode)) Substitute(c, p.nodeParams, id);
      return;
    }
    default:
      return;
  }
}

void RestoreProgramHostNodeParams(const ApiCall& c, ApiCallbackId cbid) {
  if (cbid != CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeGetParams || c.driver_result() != CUDA_SUCCESS) return;
  CUDA_HOST_NODE_PARAMS* params = c.params<cuGraphHostNodeGetParams_params>().nodeParams;
  if (params == nullptr || params->fn != &GraphHostNodeTrampoline) return;
  const auto* node = static_cast<const GraphHostNode*>(params->userData);
  params->fn = node->fn;
  params->userData = node->data;
}

bool FollowCapturedHostFunc(Tracer& t, CUhostFn& fn, void*& data) {
  auto& call = ThisCall();
  if (call.node != nullptr) return false;
  GraphHostNode* node = Table().Take(&t, 0, fn, data, &call.fresh);
  if (node == nullptr) return false;
  call.node = node;
  call.active = true;
  fn = &GraphHostNodeTrampoline;
  data = node;
  return true;
}

uint32_t GraphHostNodeIdOfThisCall() {
  const GraphHostNode* node = NodeOfThisCall();
  return node != nullptr ? node->id : 0;
}

void EndGraphHostNodeCall(CUgraphNode added) {
  if (added != nullptr) Table().NoteNode(added, GraphHostNodeIdOfThisCall());
  EndCall(true);
}

void GraphHostNodeCallFailed() {
  if (ThisCall().active) EndCall(false);
  GraphLaunchLeft();
}

void GraphLaunchLeft() {
  auto& call = ThisCall();
  if (call.launch == 0) return;
  Launches().Leave(call.launch);
  call.launch = 0;
}

}  // namespace streamcheck::tracer
