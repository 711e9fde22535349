/* nogvl-lint-test: --enable debug-offload-verdict */
/* The second trap next to magick_fresh_image.c: the same callback on an
 * image it makes itself, in a gem whose memory handlers allocate through
 * Ruby (SetMagickMemoryMethods with ruby_xmalloc, as a binding does to count
 * ImageMagick's memory in Ruby's GC): every allocation of ImageMagick then
 * needs a Ruby thread and may raise NoMemoryError. Cannot verify, never a
 * candidate. The declarations stand
 * in for <magick/MagickCore.h>. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stddef.h>

typedef struct im_image Image;
typedef struct im_exception ExceptionInfo;
typedef enum { MagickFalse = 0, MagickTrue = 1 } MagickBooleanType;
typedef enum { UndefinedPixel = 0, CharPixel = 1 } StorageType;
typedef void *(*AcquireMemoryHandler)(size_t);
typedef void *(*ResizeMemoryHandler)(void *, size_t);
typedef void (*DestroyMemoryHandler)(void *);

ExceptionInfo *AcquireExceptionInfo(void);
ExceptionInfo *DestroyExceptionInfo(ExceptionInfo *e);
Image *ConstituteImage(size_t columns, size_t rows, const char *map, StorageType type, const void *pixels,
		       ExceptionInfo *e);
MagickBooleanType EqualizeImage(Image *image);
MagickBooleanType ExportImagePixels(const Image *image, long x, long y, size_t columns, size_t rows, const char *map,
				    StorageType type, void *pixels, ExceptionInfo *e);
Image *DestroyImage(Image *image);
void SetMagickMemoryMethods(AcquireMemoryHandler acquire, ResizeMemoryHandler resize, DestroyMemoryHandler destroy);

static void *ruby_acquire(size_t n)
{
	return ruby_xmalloc(n);
}

static void *ruby_resize(void *p, size_t n)
{
	return ruby_xrealloc(p, n);
}

static void ruby_release(void *p)
{
	ruby_xfree(p);
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
	rb_thread_call_without_gvl(equalize_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: 'ruby_acquire' allocates with 'ruby_xmalloc', which needs a Ruby thread and may raise NoMemoryError */
	RB_GC_GUARD(copy);
	return j.ok ? copy : Qnil;
}

void Init_magick_memory_handlers(void)
{
	SetMagickMemoryMethods(ruby_acquire, ruby_resize, ruby_release);
	rb_define_method(rb_cObject, "equalize", equalize, 1);
}
