/* nogvl-lint-test: --enable debug-offload-verdict */
/* A library handle that IS the Ruby object's whole typed data: the binding
 * wraps the library's image directly as the object's data (no struct of its
 * own around it), takes it out with TypedData_Get_Struct, DATA_PTR,
 * RTYPEDDATA_DATA or a helper that returns it, and hands it to a library
 * function that is thread-safe only per handle (rules/models/magickcore*.yml).
 * With RB_NOGVL_OFFLOAD_SAFE other fibers of the calling thread keep running
 * while the worker uses the image, and #destroy! (or #resize!) may free or
 * replace it: the object-state gate fails each call, naming the object, the
 * handle and the method that takes the same data without a guard. Declared
 * here in place of <magick/MagickCore.h>. */
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
Image *SharpenImage(const Image *image, double radius, double sigma, ExceptionInfo *e);
Image *DestroyImage(Image *image);

static void pic_free(void *p)
{
	if (p)
		DestroyImage((Image *)p);
}

static const rb_data_type_t pic_type = {"pic", {NULL, pic_free, NULL}, NULL, NULL, 0};

/* trap: another kind of object, whose #reset! replaces its own data; it is
 * not the image's, so it is never named for the image */
struct brush {
	double width;
};

static const rb_data_type_t brush_type = {"brush", {NULL, RUBY_TYPED_DEFAULT_FREE, NULL}, NULL, NULL, 0};

static VALUE brush_reset(VALUE self)
{
	struct brush *b;
	TypedData_Get_Struct(self, struct brush, &brush_type, b);
	ruby_xfree(b);
	RTYPEDDATA_DATA(self) = NULL;
	return self;
}

/* the gem's helper: the image of an object, raising when it was destroyed */
static Image *pic_image(VALUE obj)
{
	Image *img;
	TypedData_Get_Struct(obj, Image, &pic_type, img);
	if (!img)
		rb_raise(rb_eRuntimeError, "destroyed");
	return img;
}

/* ... and one more level: frozen objects may not change */
static Image *pic_image_mutable(VALUE obj)
{
	Image *img = pic_image(obj);
	rb_check_frozen(obj);
	return img;
}

struct op_args {
	Image *image;
	double radius;
	ExceptionInfo *ex;
};

static void *blur_nogvl(void *p)
{
	struct op_args *a = p;
	return BlurImage(a->image, a->radius, 1.0, a->ex);
}

static void *sharpen_nogvl(void *p)
{
	struct op_args *a = p;
	return SharpenImage(a->image, a->radius, 1.0, a->ex);
}

static VALUE wrap(Image *img)
{
	return TypedData_Wrap_Struct(rb_cObject, &pic_type, img);
}

/* the handle from the helper that returns the data pointer */
static VALUE pic_blur(VALUE self, VALUE radius)
{
	struct op_args a;
	a.image = pic_image(self);
	a.radius = NUM2DBL(radius);
	a.ex = AcquireExceptionInfo();
	Image *out = rb_nogvl(blur_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: offload verdict: unsafe; inputs fail: 'blur_nogvl' passes 'a->image' to 'BlurImage' (thread-safe only per handle), and that handle is the typed data of the Ruby object 'self' */
	DestroyExceptionInfo(a.ex);
	return wrap(out);
}

/* two helpers deep, and the handle stored through an initialiser */
static VALUE pic_sharpen(VALUE self)
{
	Image *img = pic_image_mutable(self);
	struct op_args a = {img, 2.0, AcquireExceptionInfo()};
	Image *out = rb_nogvl(sharpen_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: with no in-progress flag or mutex held across the call, and 'pic_destroy' takes the same object's data and replaces or frees it without any guard */
	DestroyExceptionInfo(a.ex);
	return wrap(out);
}

/* DATA_PTR of a method argument (another image object), not flagged: the
 * verdict says unsafe, and no RB_NOGVL_OFFLOAD_SAFE is suggested. DATA_PTR
 * does not say which type the data is, so the function named as taking it
 * too may be another kind's (the message says so) */
static VALUE pic_blur_other(VALUE self, VALUE other)
{
	struct op_args a;
	a.image = (Image *)DATA_PTR(other);
	a.radius = 1.0;
	a.ex = AcquireExceptionInfo();
	Image *out = rb_nogvl(blur_nogvl, &a, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'blur_nogvl' passes 'a->image' to 'BlurImage' (thread-safe only per handle), and that handle is the typed data of the Ruby object 'other' (taken by '(Image*)DATA_PTR(other)') with no in-progress flag or mutex held across the call, and */
	DestroyExceptionInfo(a.ex);
	(void)self;
	return wrap(out);
}

/* RTYPEDDATA_DATA through a static helper whose every caller passes its
 * receiver */
static Image *blur_of(VALUE obj, double r)
{
	struct op_args a = {(Image *)RTYPEDDATA_DATA(obj), r, AcquireExceptionInfo()};
	Image *out = rb_nogvl(blur_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: that handle is the typed data of the Ruby object 'obj' (taken by '(Image*)RTYPEDDATA_DATA(obj)') */
	DestroyExceptionInfo(a.ex);
	return out;
}

static VALUE pic_soften(VALUE self)
{
	return wrap(blur_of(self, 3.0));
}

static VALUE pic_soften_more(VALUE self)
{
	return wrap(blur_of(self, 9.0));
}

/* a mutex every call of #gamma takes, but #destroy! does not: another fiber
 * destroys the image under the worker */
static VALUE pic_lock;

static void *gamma_nogvl(void *p)
{
	struct op_args *a = p;
	return BlurImage(a->image, 0.5, a->radius, a->ex);
}

static VALUE pic_gamma(VALUE self)
{
	struct op_args a = {pic_image(self), 0.5, AcquireExceptionInfo()};
	rb_mutex_lock(pic_lock);
	Image *out = rb_nogvl(gamma_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: that handle is the typed data of the Ruby object 'self' (taken by 'TypedData_Get_Struct(obj, Image, &pic_type, img)') under the mutex 'pic_lock', but 'pic_destroy' takes the same object's data and replaces or frees it without the guard */
	rb_mutex_unlock(pic_lock);
	DestroyExceptionInfo(a.ex);
	return wrap(out);
}

static VALUE pic_destroy(VALUE self)
{
	Image *img;
	TypedData_Get_Struct(self, Image, &pic_type, img);
	if (img)
		DestroyImage(img);
	RTYPEDDATA_DATA(self) = NULL;
	return self;
}

void Init_whole_data_handle(void)
{
	VALUE c = rb_define_class("Pic", rb_cObject);
	rb_define_method(c, "blur", pic_blur, 1);
	rb_define_method(c, "sharpen", pic_sharpen, 0);
	rb_define_method(c, "blur_other", pic_blur_other, 1);
	rb_define_method(c, "soften", pic_soften, 0);
	rb_define_method(c, "soften_more", pic_soften_more, 0);
	rb_define_method(c, "gamma", pic_gamma, 0);
	rb_define_method(c, "destroy!", pic_destroy, 0);
	rb_define_method(rb_define_class("Brush", rb_cObject), "reset!", brush_reset, 0);
	pic_lock = rb_mutex_new();
	rb_gc_register_address(&pic_lock);
}
