/* nogvl-lint-test: --enable debug-offload-verdict */
/* An ImageMagick image kept in a Ruby object (rules/models/magickcore*.yml:
 * an Image is used by one thread at a time). With RB_NOGVL_OFFLOAD_SAFE
 * another fiber may call #destroy! or another operation on the same object
 * while the worker blurs the image. The wrapper struct's field is object
 * state (the object-state gate fails it); an Image wrapped directly as the
 * typed data is the object's own state too: the object-state gate fails it,
 * naming #destroy!, which frees it without a guard
 * (corpus/offload-unsafe/whole_data_handle.c has more shapes). The
 * declarations stand in for <magick/MagickCore.h>. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stddef.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

typedef struct im_image Image;
typedef struct im_exception ExceptionInfo;

ExceptionInfo *AcquireExceptionInfo(void);
ExceptionInfo *DestroyExceptionInfo(ExceptionInfo *e);
Image *BlurImage(const Image *image, double radius, double sigma, ExceptionInfo *e);
Image *DestroyImage(Image *image);

/* ---- a wrapper struct holding the image ---- */

struct picture {
	Image *image;
	Image *result;
};

static void picture_free(void *p)
{
	struct picture *pic = p;
	if (pic->image)
		DestroyImage(pic->image);
	ruby_xfree(pic);
}

static const rb_data_type_t picture_type = {"picture", {NULL, picture_free, NULL}, NULL, NULL, 0};

static void *blur_field_nogvl(void *p)
{
	struct picture *pic = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	pic->result = BlurImage(pic->image, 0.0, 1.0, ex);
	DestroyExceptionInfo(ex);
	return NULL;
}

static VALUE picture_blur(VALUE self)
{
	struct picture *pic;
	TypedData_Get_Struct(self, struct picture, &picture_type, pic);
	rb_nogvl(blur_field_nogvl, pic, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: uses 'pic->image' and 1 more field of struct picture, a Ruby object's C struct, with no in-progress flag or mutex */
	return self;
}

static VALUE picture_destroy(VALUE self)
{
	struct picture *pic;
	TypedData_Get_Struct(self, struct picture, &picture_type, pic);
	if (pic->image)
		DestroyImage(pic->image);
	pic->image = NULL;
	return self;
}

/* ---- the Image itself as the typed data (the shape of a binding that wraps
 * MagickCore's Image directly) ---- */

static void image_free(void *p)
{
	DestroyImage((Image *)p);
}

static const rb_data_type_t image_type = {"image", {NULL, image_free, NULL}, NULL, NULL, 0};

struct blur_args {
	Image *image;
	Image *result;
};

static void *blur_nogvl(void *p)
{
	struct blur_args *a = p;
	ExceptionInfo *ex = AcquireExceptionInfo();
	a->result = BlurImage(a->image, 0.0, 1.0, ex);
	DestroyExceptionInfo(ex);
	return NULL;
}

static VALUE image_blur(VALUE self)
{
	struct blur_args a;
	TypedData_Get_Struct(self, Image, &image_type, a.image);
	a.result = NULL;
	rb_nogvl(blur_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: inputs fail: 'blur_nogvl' passes 'a->image' to 'BlurImage' (thread-safe only per handle), and that handle is the typed data of the Ruby object 'self' (taken by 'TypedData_Get_Struct(self, Image, &image_type, a.image)') with no in-progress flag or mutex held across the call, and 'image_destroy' takes the same object's data and replaces or frees it without any guard */
	return a.result ? Qtrue : Qfalse;
}

static VALUE image_destroy(VALUE self)
{
	Image *image;
	TypedData_Get_Struct(self, Image, &image_type, image);
	DestroyImage(image);
	RTYPEDDATA_DATA(self) = NULL;
	return self;
}

void Init_magick_object(void)
{
	VALUE p = rb_define_class("Picture", rb_cObject);
	VALUE i = rb_define_class("MagickImage", rb_cObject);
	rb_define_method(p, "blur", picture_blur, 0);
	rb_define_method(p, "destroy!", picture_destroy, 0);
	rb_define_method(i, "blur", image_blur, 0);
	rb_define_method(i, "destroy!", image_destroy, 0);
}
