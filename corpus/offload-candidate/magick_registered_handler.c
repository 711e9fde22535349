/* nogvl-lint-test: --enable debug-offload-verdict */
/* The trap next to magick_fresh_image.c: the same callback on an image it
 * makes itself, in a gem that registers a progress monitor somewhere. The
 * monitor here only compares its arguments (no Ruby), but the engine does
 * not tie a registration to one image, so the operation may run it: cannot
 * verify, naming the registrar, never a candidate. The memory handlers are
 * magick_memory_handlers.c's. The declarations stand in for
 * <magick/MagickCore.h>. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stddef.h>

typedef struct im_image Image;
typedef struct im_exception ExceptionInfo;
typedef enum { MagickFalse = 0, MagickTrue = 1 } MagickBooleanType;
typedef enum { UndefinedPixel = 0, CharPixel = 1 } StorageType;
typedef long long MagickOffsetType;
typedef unsigned long long MagickSizeType;
typedef MagickBooleanType (*MagickProgressMonitor)(const char *, const MagickOffsetType, const MagickSizeType,
						   void *);

ExceptionInfo *AcquireExceptionInfo(void);
ExceptionInfo *DestroyExceptionInfo(ExceptionInfo *e);
Image *ConstituteImage(size_t columns, size_t rows, const char *map, StorageType type, const void *pixels,
		       ExceptionInfo *e);
MagickBooleanType EqualizeImage(Image *image);
MagickBooleanType ExportImagePixels(const Image *image, long x, long y, size_t columns, size_t rows, const char *map,
				    StorageType type, void *pixels, ExceptionInfo *e);
Image *DestroyImage(Image *image);
MagickProgressMonitor SetImageProgressMonitor(Image *image, const MagickProgressMonitor monitor, void *client);

static MagickBooleanType count_progress(const char *what, const MagickOffsetType done, const MagickSizeType total,
					void *client)
{
	(void)what, (void)client;
	return done < 0 || (MagickSizeType)done <= total ? MagickTrue : MagickFalse;
}

struct job {
	unsigned char *pixels; /* a copy the caller made */
	size_t w;
	int ok;
};

static void *equalize_nogvl(void *p)
{
	struct job *j = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	Image *img = ConstituteImage(j->w, 1, "RGB", CharPixel, j->pixels, ex);
	if (img) {
		EqualizeImage(img);
		j->ok = ExportImagePixels(img, 0, 0, j->w, 1, "RGB", CharPixel, j->pixels, ex) == MagickTrue;
		DestroyImage(img);
	}
	DestroyExceptionInfo(ex);
	return NULL;
}

static VALUE equalize(VALUE self, VALUE str)
{
	struct job j;
	long n = RSTRING_LEN(str);
	VALUE copy = rb_str_new(RSTRING_PTR(str), n);
	(void)self;
	j.pixels = (unsigned char *)RSTRING_PTR(copy);
	j.w = (size_t)n / 3;
	j.ok = 0;
	rb_thread_call_without_gvl(equalize_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; opaque callees cannot verify: 'equalize_nogvl' calls 'EqualizeImage', which may run the handler registered with 'SetImageProgressMonitor' */
	RB_GC_GUARD(copy);
	return j.ok ? copy : Qnil;
}

static VALUE watch(VALUE self, VALUE ptr)
{
	(void)self;
	SetImageProgressMonitor((Image *)NUM2PTR(ptr), count_progress, NULL);
	return Qnil;
}

void Init_magick_registered_handler(void)
{
	rb_define_method(rb_cObject, "equalize", equalize, 1);
	rb_define_method(rb_cObject, "watch", watch, 1);
}
