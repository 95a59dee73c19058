// SPDX-License-Identifier: MIT
/*
 * Argus capture exported as NvBufSurface dma-bufs (Jetson Multimedia API).
 *
 * Built into the shim by ffi/build.sh only on a Jetson with the Multimedia
 * API installed; everywhere else src/argus_none.c provides the same symbols
 * returning -ENOSYS. Off a Jetson, tests/jetson/argus_compile.test.ts
 * compiles it (for aarch64, not linked, not run) against the API's public
 * headers and the project's nvbufsurface.h declaration.
 *
 * Each session owns a ring of AXL_ARGUS_RING_SLOTS NvBuffers (NV12 extended
 * range, pitch-linear, at the session's size). A slot's buffer is created
 * once, by IImageNativeBuffer::createNvBuffer with the first frame it
 * receives; every later frame is blitted into a free slot's buffer by
 * copyToNvBuffer. Both copies are the VIC's, not the CPU's. Acquire hands
 * out the slot's dma-buf fd, which stays the session's: the caller must not
 * close it, and gives the slot back with axl_shim_argus_release. Close
 * destroys every buffer with NvBufSurfaceDestroy, as the header asks of
 * createNvBuffer's fds.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include <new>
#include <vector>

#include <Argus/Argus.h>
#include <EGLStream/EGLStream.h>
#include <EGLStream/NV/ImageNativeBuffer.h>
#include <nvbufsurface.h>

extern "C" {
#include "axl_shim.h"
}

using namespace Argus;

namespace {

struct Slot {
	int fd = -1;			/* createNvBuffer's dma-buf fd, -1 before the first frame */
	NvBufSurface *surf = nullptr;	/* the NvBufSurface behind fd */
	bool held = false;		/* handed out by acquire, not yet released */
};

struct Session {
	UniqueObj<CameraProvider> provider;
	UniqueObj<CaptureSession> session;
	UniqueObj<OutputStream> stream;
	UniqueObj<EGLStream::FrameConsumer> consumer;
	UniqueObj<Request> request;
	uint32_t width = 0;
	uint32_t height = 0;
	Slot ring[AXL_ARGUS_RING_SLOTS];
};

constexpr int kMaxSessions = 4;
Session *sessions[kMaxSessions];

Session *lookup(int32_t id)
{
	return id >= 0 && id < kMaxSessions ? sessions[id] : nullptr;
}

/* Destroys every ring buffer; a held slot's fd is the session's to free too. */
void destroy_ring(Session *s)
{
	for (Slot &slot : s->ring) {
		if (slot.surf)
			NvBufSurfaceDestroy(slot.surf);
		slot = Slot();
	}
}

/*
 * Fills @slot with @image: a new NvBuffer on the slot's first frame, a blit
 * into its buffer after that.
 */
int fill_slot(Session *s, Slot *slot, EGLStream::NV::IImageNativeBuffer *image)
{
	if (slot->fd >= 0) {
		if (image->copyToNvBuffer(slot->fd, EGLStream::NV::ROTATION_0) != STATUS_OK)
			return -EIO;
		return 0;
	}

	int fd = image->createNvBuffer(Size2D<uint32_t>(s->width, s->height),
				       NVBUF_COLOR_FORMAT_NV12_ER, NVBUF_LAYOUT_PITCH);
	if (fd < 0)
		return -EIO;
	void *surf = nullptr;
	if (NvBufSurfaceFromFd(fd, &surf) != 0 || !surf) {
		/*
		 * NvBufSurfaceDestroy needs the surface this lookup did not
		 * find: closing the fd is all that is left to do.
		 */
		close(fd);
		return -EIO;
	}
	slot->fd = fd;
	slot->surf = static_cast<NvBufSurface *>(surf);
	return 0;
}

/* The sensor's start-of-frame time of @frame (ICaptureMetadata), or 0. */
uint64_t sensor_timestamp(EGLStream::Frame *frame)
{
	EGLStream::IArgusCaptureMetadata *meta =
		interface_cast<EGLStream::IArgusCaptureMetadata>(frame);
	if (!meta)
		return 0;
	ICaptureMetadata *capture = interface_cast<ICaptureMetadata>(meta->getMetadata());
	return capture ? capture->getSensorTimestamp() : 0;
}

} // namespace

extern "C" int32_t axl_shim_argus_available(void)
{
	return 0;
}

extern "C" int32_t axl_shim_argus_open(uint32_t sensor, uint32_t width, uint32_t height)
{
	int32_t id = 0;
	while (id < kMaxSessions && sessions[id])
		id++;
	if (id == kMaxSessions)
		return -EMFILE;
	if (!width || !height || width % 2 || height % 2)
		return -EINVAL;

	Session *s = new (std::nothrow) Session;
	if (!s)
		return -ENOMEM;
	s->width = width;
	s->height = height;
	s->provider.reset(CameraProvider::create());
	ICameraProvider *provider = interface_cast<ICameraProvider>(s->provider);
	std::vector<CameraDevice *> devices;
	if (!provider || provider->getCameraDevices(&devices) != STATUS_OK || sensor >= devices.size())
		goto err_nodev;

	s->session.reset(provider->createCaptureSession(devices[sensor]));
	{
		ICaptureSession *capture = interface_cast<ICaptureSession>(s->session);
		if (!capture)
			goto err_busy;
		UniqueObj<OutputStreamSettings> settings(
			capture->createOutputStreamSettings(STREAM_TYPE_EGL));
		IEGLOutputStreamSettings *egl = interface_cast<IEGLOutputStreamSettings>(settings);
		if (!egl)
			goto err_busy;
		egl->setPixelFormat(PIXEL_FMT_YCbCr_420_888);
		egl->setResolution(Size2D<uint32_t>(width, height));
		egl->setMode(EGL_STREAM_MODE_MAILBOX);
		egl->setMetadataEnable(true);
		s->stream.reset(capture->createOutputStream(settings.get()));
		s->consumer.reset(EGLStream::FrameConsumer::create(s->stream.get()));
		s->request.reset(capture->createRequest());
		IRequest *request = interface_cast<IRequest>(s->request);
		if (!s->stream || !s->consumer || !request ||
		    !interface_cast<EGLStream::IFrameConsumer>(s->consumer) ||
		    request->enableOutputStream(s->stream.get()) != STATUS_OK ||
		    capture->repeat(s->request.get()) != STATUS_OK)
			goto err_busy;
	}
	sessions[id] = s;
	return id;

err_nodev:
	delete s;
	return -ENODEV;
err_busy:
	delete s;
	return -EBUSY;
}

/*
 * Waits up to @timeout_ms (0 ... AXL_ARGUS_MAX_TIMEOUT_MS) for the next frame
 * and copies it into a free ring slot.
 *
 * out: [0] dma-buf fd of the slot (the session's: do not close it)
 *      [1] pitch of plane 0 [2] sensor start-of-frame time, ns (0: none)
 *      [3] dataSize [4] NvBufSurfaceColorFormat [5] ring slot
 *      [6] offset of plane 1 [7] pitch of plane 1
 *
 * -ENOBUFS when every slot is held (release one), -ETIMEDOUT when no frame
 * came in time.
 */
extern "C" int32_t axl_shim_argus_acquire_fd(int32_t id, int32_t timeout_ms, uint64_t *out)
{
	Session *s = lookup(id);
	if (!s || !out || timeout_ms < 0 || timeout_ms > AXL_ARGUS_MAX_TIMEOUT_MS)
		return -EINVAL;
	Slot *slot = nullptr;
	for (Slot &candidate : s->ring) {
		if (!candidate.held) {
			slot = &candidate;
			break;
		}
	}
	if (!slot)
		return -ENOBUFS;
	EGLStream::IFrameConsumer *consumer = interface_cast<EGLStream::IFrameConsumer>(s->consumer);
	if (!consumer)
		return -EIO;

	/* acquireFrame's timeout is in nanoseconds. */
	Status status = STATUS_OK;
	UniqueObj<EGLStream::Frame> frame(
		consumer->acquireFrame((uint64_t)timeout_ms * 1000000ULL, &status));
	EGLStream::IFrame *iframe = interface_cast<EGLStream::IFrame>(frame);
	if (!iframe)
		return status == STATUS_TIMEOUT ? -ETIMEDOUT : -EIO;
	EGLStream::NV::IImageNativeBuffer *image =
		interface_cast<EGLStream::NV::IImageNativeBuffer>(iframe->getImage());
	if (!image)
		return -ENOTSUP;
	int ret = fill_slot(s, slot, image);
	if (ret)
		return ret;

	const NvBufSurfaceParams &params = slot->surf->surfaceList[0];
	slot->held = true;
	out[0] = (uint64_t)slot->fd;
	out[1] = params.planeParams.pitch[0];
	out[2] = sensor_timestamp(frame.get());
	out[3] = params.dataSize;
	out[4] = params.colorFormat;
	out[5] = (uint64_t)(slot - s->ring);
	out[6] = params.planeParams.offset[1];
	out[7] = params.planeParams.pitch[1];
	return 0;
}

/* Gives ring slot @slot back to the session once its frame is consumed. */
extern "C" int32_t axl_shim_argus_release(int32_t id, uint32_t slot)
{
	Session *s = lookup(id);
	if (!s || slot >= AXL_ARGUS_RING_SLOTS || !s->ring[slot].held)
		return -EINVAL;
	s->ring[slot].held = false;
	return 0;
}

extern "C" int32_t axl_shim_argus_close(int32_t id)
{
	Session *s = lookup(id);
	if (!s)
		return -EINVAL;
	ICaptureSession *capture = interface_cast<ICaptureSession>(s->session);
	if (capture) {
		capture->stopRepeat();
		capture->waitForIdle();
	}
	destroy_ring(s);
	sessions[id] = nullptr;
	delete s;
	return 0;
}
