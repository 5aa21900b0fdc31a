// A getter that copies a device list into a std::vector through a lower
// helper that allocates the vector, and reads it before synchronizing (faiss's
// IVFBase::getListIndices over DeviceVector::copyToHost): the copy and the
// read both lie in the getter, so the finding is the getter's and is reported
// once, at its call of the lower helper, not again at each call of the getter
// from a function that walks every list (racy). The getter that synchronizes
// first is silent at every call (fixed). A caller that reads the vector the
// lower helper returned, with no synchronize, is a finding of its own, at its
// call (racy).
#include <cuda_runtime.h>
#include <vector>

struct DeviceList {
  int* data = nullptr;
  int count = 0;

  std::vector<int> to_host(cudaStream_t s) const {
    std::vector<int> out(count);
    if (count > 0) cudaMemcpyAsync(out.data(), data, count * sizeof(int), cudaMemcpyDeviceToHost, s);
    return out;
  }
};

struct Lists {
  DeviceList lists[8];
  cudaStream_t stream;

  std::vector<long> racy_ids_of(int list) const {
    auto narrow = lists[list].to_host(stream);  // expected-warning:19{{pageable-async-copy}}
    std::vector<long> wide(narrow.size());
    for (size_t i = 0; i < narrow.size(); ++i) wide[i] = narrow[i];
    return wide;
  }

  std::vector<long> fixed_ids_of(int list) const {
    auto narrow = lists[list].to_host(stream);
    cudaStreamSynchronize(stream);
    std::vector<long> wide(narrow.size());
    for (size_t i = 0; i < narrow.size(); ++i) wide[i] = narrow[i];
    return wide;
  }

  long sum_all_racy() const {
    long total = 0;
    for (int l = 0; l < 8; ++l) {
      auto ids = racy_ids_of(l);
      for (long id : ids) total += id;
    }
    return total;
  }

  long sum_all_fixed() const {
    long total = 0;
    for (int l = 0; l < 8; ++l) {
      auto ids = fixed_ids_of(l);
      for (long id : ids) total += id;
    }
    return total;
  }

  int racy_first_of(int list) const {
    auto narrow = lists[list].to_host(stream);  // expected-warning:19{{pageable-async-copy}}
    return narrow.empty() ? -1 : narrow[0];
  }
};
