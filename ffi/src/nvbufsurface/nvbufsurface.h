/* SPDX-License-Identifier: MIT */
/*
 * Generated from lib/nvmm/surface_layout.ts by scripts/gen-nvmm-layout.ts: do not edit.
 * The part of NVIDIA's nvbufsurface.h (libnvbufsurface) that ffi/src/argus.cpp uses, in
 * NVIDIA's names and field order, for compiling it where the real header is not installed.
 * A Jetson build compiles against the real header instead.
 */
#ifndef AXL_NVBUFSURFACE_DECL_H
#define AXL_NVBUFSURFACE_DECL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NVBUF_MAX_PLANES 4

typedef enum {
	NVBUF_COLOR_FORMAT_NV12_ER = 7,
} NvBufSurfaceColorFormat;

typedef enum {
	NVBUF_LAYOUT_PITCH = 0,
	NVBUF_LAYOUT_BLOCK_LINEAR = 1,
} NvBufSurfaceLayout;

typedef enum {
	NVBUF_MEM_DEFAULT = 0,
	NVBUF_MEM_CUDA_PINNED = 1,
	NVBUF_MEM_CUDA_DEVICE = 2,
	NVBUF_MEM_CUDA_UNIFIED = 3,
	NVBUF_MEM_SURFACE_ARRAY = 4,
	NVBUF_MEM_HANDLE = 5,
	NVBUF_MEM_SYSTEM = 6,
} NvBufSurfaceMemType;

typedef struct NvBufSurfacePlaneParams {
	uint32_t num_planes;
	uint32_t width[NVBUF_MAX_PLANES];
	uint32_t height[NVBUF_MAX_PLANES];
	uint32_t pitch[NVBUF_MAX_PLANES];
	uint32_t offset[NVBUF_MAX_PLANES];
	uint32_t psize[NVBUF_MAX_PLANES];
	uint32_t bytesPerPix[NVBUF_MAX_PLANES];
	void *_reserved[16];
} NvBufSurfacePlaneParams;

typedef struct NvBufSurfaceMappedAddr {
	void *addr[NVBUF_MAX_PLANES];
	void *eglImage;
	void *_reserved[4];
} NvBufSurfaceMappedAddr;

struct NvBufSurfaceParamsEx;

typedef struct NvBufSurfaceParams {
	uint32_t width;
	uint32_t height;
	uint32_t pitch;
	NvBufSurfaceColorFormat colorFormat;
	NvBufSurfaceLayout layout;
	uint64_t bufferDesc;
	uint32_t dataSize;
	void *dataPtr; /* not valid for NVBUF_MEM_SURFACE_ARRAY */
	NvBufSurfacePlaneParams planeParams;
	NvBufSurfaceMappedAddr mappedAddr;
	struct NvBufSurfaceParamsEx *paramex;
	void *_reserved[3];
} NvBufSurfaceParams;

typedef struct NvBufSurface {
	uint32_t gpuId;
	uint32_t batchSize;
	uint32_t numFilled;
	bool isContiguous;
	NvBufSurfaceMemType memType;
	NvBufSurfaceParams *surfaceList;
	void *_reserved[4];
} NvBufSurface;

/* The NvBufSurface behind a dma-buf fd of an NvBuffer; 0 on success, -1 on failure. */
int NvBufSurfaceFromFd(int dmabuf_fd, void **buffer);
/* Frees an NvBuffer (and its fd) found by NvBufSurfaceFromFd; 0 or -1. */
int NvBufSurfaceDestroy(NvBufSurface *surf);

#ifdef __cplusplus
}
#endif

#endif
