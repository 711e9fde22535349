/* nogvl-lint-test: --enable debug-offload-verdict */
/* ImageMagick (rules/models/magickcore*.yml): an Image, ImageInfo or
 * ExceptionInfo is used by one thread at a time (architecture.php "Threads of
 * Execution"), so an image the callback makes and destroys itself is its own:
 * a candidate, as long as the gem registers no progress monitor and no memory
 * handlers (nothing here does). The traps: the handle of ImageToBlob is its
 * second argument (the image), not the ImageInfo; an image another call
 * returned is not followed; a reader may wait on a delegate program. The
 * declarations stand in for <magick/MagickCore.h>. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stddef.h>

typedef struct im_image Image;
typedef struct im_image_info ImageInfo;
typedef struct im_exception ExceptionInfo;
typedef enum { MagickFalse = 0, MagickTrue = 1 } MagickBooleanType;
typedef enum { UndefinedPixel = 0, CharPixel = 1 } StorageType;

ExceptionInfo *AcquireExceptionInfo(void);
ExceptionInfo *DestroyExceptionInfo(ExceptionInfo *e);
ImageInfo *AcquireImageInfo(void);
ImageInfo *DestroyImageInfo(ImageInfo *i);
Image *ConstituteImage(size_t columns, size_t rows, const char *map, StorageType type, const void *pixels,
		       ExceptionInfo *e);
MagickBooleanType NegateImage(Image *image, MagickBooleanType grayscale);
MagickBooleanType ExportImagePixels(const Image *image, long x, long y, size_t columns, size_t rows, const char *map,
				    StorageType type, void *pixels, ExceptionInfo *e);
Image *ResizeImage(const Image *image, size_t columns, size_t rows, int filter, double blur, ExceptionInfo *e);
Image *DestroyImage(Image *image);
void *ImageToBlob(const ImageInfo *info, Image *image, size_t *length, ExceptionInfo *e);
Image *ReadImage(const ImageInfo *info, ExceptionInfo *e);

struct negate_job {
	unsigned char *pixels; /* a copy the caller made */
	size_t w, h;
	int ok;
};

/* every handle made and destroyed here: a candidate */
static void *negate_nogvl(void *p)
{
	struct negate_job *j = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	Image *img = ConstituteImage(j->w, j->h, "RGB", CharPixel, j->pixels, ex);
	if (img) {
		NegateImage(img, MagickFalse);
		j->ok = ExportImagePixels(img, 0, 0, j->w, j->h, "RGB", CharPixel, j->pixels, ex) == MagickTrue;
		DestroyImage(img);
	}
	DestroyExceptionInfo(ex);
	return NULL;
}

struct blob_job {
	Image *image; /* the caller's image */
	void *blob;
	size_t len;
};

/* the ImageInfo is fresh, but the handle is the image (argument 1): cannot verify */
static void *blob_nogvl(void *p)
{
	struct blob_job *j = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	ImageInfo *info = AcquireImageInfo();
	j->blob = ImageToBlob(info, j->image, &j->len, ex);
	DestroyImageInfo(info);
	DestroyExceptionInfo(ex);
	return NULL;
}

/* an image ResizeImage returned: a new image, but the engine does not follow
 * it to its maker (cannot verify, never a candidate) */
static void *resize_nogvl(void *p)
{
	struct negate_job *j = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	Image *img = ConstituteImage(j->w, j->h, "RGB", CharPixel, j->pixels, ex);
	Image *small = ResizeImage(img, j->w / 2, j->h / 2, 0, 1.0, ex);
	j->ok = ExportImagePixels(small, 0, 0, j->w / 2, j->h / 2, "RGB", CharPixel, j->pixels, ex) == MagickTrue;
	DestroyImage(small);
	DestroyImage(img);
	DestroyExceptionInfo(ex);
	return NULL;
}

/* a reader: the coder may run a delegate program and wait for it */
static void *read_nogvl(void *p)
{
	struct negate_job *j = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	ImageInfo *info = AcquireImageInfo();
	Image *img = ReadImage(info, ex);
	j->ok = img != NULL;
	if (img)
		DestroyImage(img);
	DestroyImageInfo(info);
	DestroyExceptionInfo(ex);
	return NULL;
}

static VALUE negate(VALUE self, VALUE str)
{
	struct negate_job j;
	long n = RSTRING_LEN(str);
	VALUE copy = rb_str_new(RSTRING_PTR(str), n);
	(void)self;
	j.pixels = (unsigned char *)RSTRING_PTR(copy);
	j.w = (size_t)n / 3;
	j.h = 1;
	j.ok = 0;
	rb_thread_call_without_gvl(negate_nogvl, &j, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate; models: AcquireExceptionInfo (magickcore), ConstituteImage (magickcore) */
	RB_GC_GUARD(copy);
	return j.ok ? copy : Qnil;
}

static VALUE to_blob(VALUE self, VALUE ptr)
{
	struct blob_job j = {(Image *)NUM2PTR(ptr), NULL, 0};
	(void)self;
	rb_thread_call_without_gvl(blob_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: calls 'ImageToBlob', which is thread-safe only per handle (model rules/models/magickcore.yml: */
	return j.blob ? rb_str_new((const char *)j.blob, (long)j.len) : Qnil;
}

static VALUE resize(VALUE self, VALUE str)
{
	struct negate_job j;
	long n = RSTRING_LEN(str);
	VALUE copy = rb_str_new(RSTRING_PTR(str), n);
	(void)self;
	j.pixels = (unsigned char *)RSTRING_PTR(copy);
	j.w = (size_t)n / 3;
	j.h = 1;
	j.ok = 0;
	rb_thread_call_without_gvl(resize_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify */
	RB_GC_GUARD(copy);
	return j.ok ? copy : Qnil;
}

static VALUE read_one(VALUE self)
{
	struct negate_job j = {NULL, 0, 0, 0};
	(void)self;
	rb_thread_call_without_gvl(read_nogvl, &j, RUBY_UBF_PROCESS, NULL); /* expect: debug-offload-verdict */ /* expect-msg: calls 'ReadImage', which may block (no signal interrupts it, model rules/models/magickcore.yml: */
	return j.ok ? Qtrue : Qfalse;
}

void Init_magick_fresh_image(void)
{
	rb_define_method(rb_cObject, "negate", negate, 1);
	rb_define_method(rb_cObject, "to_blob", to_blob, 1);
	rb_define_method(rb_cObject, "resize", resize, 1);
	rb_define_method(rb_cObject, "read_one", read_one, 0);
}
