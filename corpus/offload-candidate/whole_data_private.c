/* nogvl-lint-test: --enable debug-offload-verdict */
/* A library handle that is a Ruby object's whole typed data (the shape of
 * corpus/offload-unsafe/whole_data_handle.c), where the object-state gate
 * must NOT fail the call, and never offers it either:
 *   - every method that takes the image holds the same Ruby mutex (guarded:
 *     the verdict stays "cannot verify", the gate does not claim more);
 *   - the object is still being created: initialize fills the image before
 *     any other fiber can see the object (private, as for a struct's fields);
 *   - traps: the handle is the data of a different object the method has
 *     just made itself (TypedData_Wrap_Struct, directly or through a helper),
 *     which no other fiber can reach during the call.
 * The per-handle model keeps all of them "cannot verify" (named): the image
 * is not the callback's own. Declared here in place of <magick/MagickCore.h>. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stddef.h>

typedef struct im_image Image;
typedef struct im_exception ExceptionInfo;

ExceptionInfo *AcquireExceptionInfo(void);
ExceptionInfo *DestroyExceptionInfo(ExceptionInfo *e);
Image *BlurImage(const Image *image, double radius, double sigma, ExceptionInfo *e);
Image *CloneImage(const Image *image, size_t columns, size_t rows, unsigned int detach, ExceptionInfo *e);
Image *DestroyImage(Image *image);

static void img_free(void *p)
{
	if (p)
		DestroyImage((Image *)p);
}

static const rb_data_type_t img_type = {"img", {NULL, img_free, NULL}, NULL, NULL, 0};
static VALUE img_lock; /* every method that takes an image holds it */

struct blur_args {
	Image *image;
	Image *out;
	ExceptionInfo *ex;
};

static void *blur_nogvl(void *p)
{
	struct blur_args *a = p;
	a->out = BlurImage(a->image, 1.0, 1.0, a->ex);
	return NULL;
}

/* ---- guarded: the mutex is held across the call by every method ---- */

static VALUE img_blur_body(VALUE self)
{
	struct blur_args a;
	TypedData_Get_Struct(self, Image, &img_type, a.image);
	a.ex = AcquireExceptionInfo();
	rb_nogvl(blur_nogvl, &a, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: 'TypedData_Get_Struct' hands the callback memory owned by 'self' */
	DestroyExceptionInfo(a.ex);
	return a.out ? Qtrue : Qfalse;
}

static VALUE img_blur(VALUE self)
{
	return rb_mutex_synchronize(img_lock, img_blur_body, self);
}

static VALUE img_destroy(VALUE self)
{
	Image *img;
	rb_mutex_lock(img_lock);
	TypedData_Get_Struct(self, Image, &img_type, img);
	if (img)
		DestroyImage(img);
	RTYPEDDATA_DATA(self) = NULL;
	rb_mutex_unlock(img_lock);
	return self;
}

/* ---- private: the object is still being created ---- */

static VALUE img_alloc(VALUE klass)
{
	return TypedData_Wrap_Struct(klass, &img_type, NULL);
}

static VALUE img_initialize(VALUE self, VALUE src)
{
	struct blur_args a;
	TypedData_Get_Struct(src, Image, &img_type, a.image);
	a.image = CloneImage(a.image, 0, 0, 1, NULL);
	RTYPEDDATA_DATA(self) = a.image;
	a.ex = AcquireExceptionInfo();
	/* blurs the new object's own image: self is not yet visible to others */
	struct blur_args b = {(Image *)RTYPEDDATA_DATA(self), NULL, a.ex};
	rb_nogvl(blur_nogvl, &b, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('self') */
	DestroyExceptionInfo(a.ex);
	return self;
}

/* ---- traps: a different object, made here ---- */

static VALUE img_blurred_copy(VALUE self)
{
	Image *src;
	rb_mutex_lock(img_lock);
	TypedData_Get_Struct(self, Image, &img_type, src);
	VALUE copy = TypedData_Wrap_Struct(rb_obj_class(self), &img_type, CloneImage(src, 0, 0, 1, NULL));
	struct blur_args a;
	TypedData_Get_Struct(copy, Image, &img_type, a.image);
	a.ex = AcquireExceptionInfo();
	rb_nogvl(blur_nogvl, &a, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: 'TypedData_Get_Struct' hands the callback memory owned by 'copy' */
	DestroyExceptionInfo(a.ex);
	rb_mutex_unlock(img_lock);
	return copy;
}

static Image *blur_object(VALUE obj)
{
	struct blur_args a = {(Image *)RTYPEDDATA_DATA(obj), NULL, AcquireExceptionInfo()};
	rb_nogvl(blur_nogvl, &a, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('obj') */
	DestroyExceptionInfo(a.ex);
	return a.out;
}

static VALUE img_blurred_copy2(VALUE self)
{
	Image *src;
	rb_mutex_lock(img_lock);
	TypedData_Get_Struct(self, Image, &img_type, src);
	VALUE fresh = TypedData_Wrap_Struct(rb_obj_class(self), &img_type, CloneImage(src, 0, 0, 1, NULL));
	rb_mutex_unlock(img_lock);
	Image *out = blur_object(fresh);
	return out ? fresh : Qnil;
}

void Init_whole_data_private(void)
{
	VALUE c = rb_define_class("Img", rb_cObject);
	rb_define_alloc_func(c, img_alloc);
	rb_define_method(c, "initialize", img_initialize, 1);
	rb_define_method(c, "blur", img_blur, 0);
	rb_define_method(c, "blurred_copy", img_blurred_copy, 0);
	rb_define_method(c, "blurred_copy2", img_blurred_copy2, 0);
	rb_define_method(c, "destroy!", img_destroy, 0);
	img_lock = rb_mutex_new();
	rb_gc_register_address(&img_lock);
}
