// The parameter structs of CUDA's API calls (generated_cuda_*_meta.h), for
// the decoders. cupti.h and sanitizer.h each include them with typedefs of
// their own for the obsolete _v1 types, and the two clash: a decoder
// includes this header and neither of them.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#if defined(_CUPTI_H_) || defined(__SANITIZER_H__)
#error "cuda_call_params.h declares what cupti.h and sanitizer.h declare: include it in decoders only"
#endif

typedef unsigned int CUdeviceptr_v1;
typedef struct CUDA_MEMCPY2D_v1_st { int dummy; } CUDA_MEMCPY2D_v1;
typedef struct CUDA_MEMCPY3D_v1_st { int dummy; } CUDA_MEMCPY3D_v1;
typedef struct CUDA_ARRAY_DESCRIPTOR_v1_st { int dummy; } CUDA_ARRAY_DESCRIPTOR_v1;
typedef struct CUDA_ARRAY3D_DESCRIPTOR_v1_st { int dummy; } CUDA_ARRAY3D_DESCRIPTOR_v1;

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_meta.h>
#include <generated_cuda_runtime_api_meta.h>
