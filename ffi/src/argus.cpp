// SPDX-License-Identifier: MIT
/*
 * Argus capture exported as NvBufSurface dma-bufs (Jetson Multimedia API).
 *
 * Built by ffi/build.sh only on a Jetson with the Multimedia API installed;
 * everywhere else src/argus_none.c provides the same symbols returning
 * -ENOSYS. NOT COMPILED OR RUN on the project's CI machines (no Jetson):
 * treat it as the documented shape of the Argus path until it has run on
 * the reference device.
 *
 * Each acquired frame is exported with IImageNativeBuffer::createNvBuffer
 * (NV12 extended range, pitch-linear): a new dma-buf fd the caller owns and
 * closes. The conversion from Argus' internal buffer is done by the VIC, not
 * the CPU.
 */
#include <errno.h>
#include <stdint.h>

#include <Argus/Argus.h>
#include <EGLStream/EGLStream.h>
#include <EGLStream/NV/ImageNativeBuffer.h>
#include <NvBufSurface.h>
#include <nvbufsurface.h>

extern "C" {
#include "axl_shim.h"
}

using namespace Argus;

namespace {

struct Session {
	UniqueObj<CameraProvider> provider;
	UniqueObj<CaptureSession> session;
	UniqueObj<OutputStream> stream;
	UniqueObj<EGLStream::FrameConsumer> consumer;
	UniqueObj<Request> request;
	uint32_t width = 0;
	uint32_t height = 0;
};

constexpr int kMaxSessions = 4;
Session *sessions[kMaxSessions];

Session *lookup(int32_t id)
{
	return id >= 0 && id < kMaxSessions ? sessions[id] : nullptr;
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
		s->stream.reset(capture->createOutputStream(settings.get()));
		s->consumer.reset(EGLStream::FrameConsumer::create(s->stream.get()));
		s->request.reset(capture->createRequest());
		IRequest *request = interface_cast<IRequest>(s->request);
		if (!s->stream || !s->consumer || !request ||
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
 * out: [0] dma-buf fd [1] pitch of plane 0 [2] capture time in ns
 *      [3] dataSize [4] NvBufSurfaceColorFormat [5] dataPtr
 */
extern "C" int32_t axl_shim_argus_acquire_fd(int32_t id, int32_t timeout_ms, uint64_t *out)
{
	Session *s = lookup(id);
	if (!s || !out)
		return -EINVAL;
	EGLStream::IFrameConsumer *consumer = interface_cast<EGLStream::IFrameConsumer>(s->consumer);
	Status status = STATUS_OK;
	UniqueObj<EGLStream::Frame> frame(
		consumer->acquireFrame((uint64_t)timeout_ms * 1000000ULL, &status));
	EGLStream::IFrame *iframe = interface_cast<EGLStream::IFrame>(frame);
	if (!iframe)
		return status == STATUS_TIMEOUT ? -ETIMEDOUT : -EIO;
	EGLStream::NV::IImageNativeBuffer *native =
		interface_cast<EGLStream::NV::IImageNativeBuffer>(iframe->getImage());
	if (!native)
		return -ENOTSUP;
	int fd = native->createNvBuffer(Size2D<uint32_t>(s->width, s->height),
					NVBUF_COLOR_FORMAT_NV12_ER, NVBUF_LAYOUT_PITCH);
	if (fd < 0)
		return -EIO;
	NvBufSurface *surf = nullptr;
	if (NvBufSurfaceFromFd(fd, (void **)&surf) != 0 || !surf) {
		NvBufSurf::NvDestroy(fd);
		return -EIO;
	}
	out[0] = (uint64_t)fd;
	out[1] = surf->surfaceList[0].planeParams.pitch[0];
	out[2] = iframe->getTime();
	out[3] = surf->surfaceList[0].dataSize;
	out[4] = surf->surfaceList[0].colorFormat;
	out[5] = (uint64_t)(uintptr_t)surf->surfaceList[0].dataPtr;
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
	sessions[id] = nullptr;
	delete s;
	return 0;
}
