/* nogvl-lint-test: --enable debug-offload-verdict */
/* ImageMagick runs the progress monitor registered for an image from inside
 * its operations (monitor.c SetImageProgress, rules/models/magickcore*.yml):
 * a monitor that yields to a Ruby block is reached without the GVL when an
 * operation runs in a callback, even one on an image the callback made itself
 * (the registration is not tied to an image the engine can name). A warning
 * handler set with SetWarningHandler runs from readers (CatchException in the
 * vid and msl coders): a handler that warns through Ruby is reached from
 * ReadImage too, not from a plain filter. The declarations stand in for
 * <magick/MagickCore.h>. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stddef.h>

typedef struct im_image Image;
typedef struct im_image_info ImageInfo;
typedef struct im_exception ExceptionInfo;
typedef enum { MagickFalse = 0, MagickTrue = 1 } MagickBooleanType;
typedef long long MagickOffsetType;
typedef unsigned long long MagickSizeType;
typedef MagickBooleanType (*MagickProgressMonitor)(const char *, const MagickOffsetType, const MagickSizeType,
						   void *);
typedef void (*WarningHandler)(int, const char *, const char *);

ExceptionInfo *AcquireExceptionInfo(void);
ExceptionInfo *DestroyExceptionInfo(ExceptionInfo *e);
ImageInfo *AcquireImageInfo(void);
ImageInfo *DestroyImageInfo(ImageInfo *i);
MagickProgressMonitor SetImageProgressMonitor(Image *image, const MagickProgressMonitor monitor, void *client);
WarningHandler SetWarningHandler(WarningHandler handler);
Image *SharpenImage(const Image *image, double radius, double sigma, ExceptionInfo *e);
Image *ReadImage(const ImageInfo *info, ExceptionInfo *e);
Image *DestroyImage(Image *image);

static MagickBooleanType yield_progress(const char *what, const MagickOffsetType done, const MagickSizeType total,
					void *client)
{
	(void)what, (void)client;
	VALUE go = rb_yield_values(2, LL2NUM(done), ULL2NUM(total)); /* expect: ruby-api-without-gvl */
	return RTEST(go) ? MagickTrue : MagickFalse;
}

static void warn_in_ruby(int severity, const char *reason, const char *description)
{
	(void)severity;
	rb_warn("%s: %s", reason, description ? description : ""); /* expect: ruby-api-without-gvl */
}

struct sharpen_job {
	Image *image;
	Image *result;
};

static void *sharpen_nogvl(void *p)
{
	struct sharpen_job *j = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	j->result = SharpenImage(j->image, 0.0, 1.0, ex);
	DestroyExceptionInfo(ex);
	return NULL;
}

static void *read_nogvl(void *p)
{
	struct sharpen_job *j = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	ImageInfo *info = AcquireImageInfo();
	j->result = ReadImage(info, ex);
	DestroyImageInfo(info);
	DestroyExceptionInfo(ex);
	return NULL;
}

static VALUE sharpen_with_progress(VALUE self, VALUE ptr)
{
	struct sharpen_job j = {(Image *)NUM2PTR(ptr), NULL};
	(void)self;
	SetImageProgressMonitor(j.image, yield_progress, NULL);
	rb_thread_call_without_gvl(sharpen_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; Ruby API fail: 'yield_progress' calls Ruby API 'LL2NUM' */
	return j.result ? PTR2NUM(j.result) : Qnil;
}

static VALUE read_with_warnings(VALUE self)
{
	struct sharpen_job j = {NULL, NULL};
	(void)self;
	rb_thread_call_without_gvl(read_nogvl, &j, RUBY_UBF_PROCESS, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; Ruby API fail: 'warn_in_ruby' calls Ruby API 'rb_warn' */
	return j.result ? PTR2NUM(j.result) : Qnil;
}

void Init_magick_monitor(void)
{
	SetWarningHandler(warn_in_ruby);
	rb_define_method(rb_cObject, "sharpen_with_progress", sharpen_with_progress, 1);
	rb_define_method(rb_cObject, "read_with_warnings", read_with_warnings, 0);
}
