/* A small stand-in for Ruby's headers, written for the pipeline fuzz harness
 * only (tests/fuzz/fuzz_pipeline.c): parsing it costs little, so the fuzzer
 * spends its time in our extraction, linking and rules. The corpus and every
 * other test use the real installed headers. Names and shapes follow the
 * public C API (include/ruby/internal/ in Ruby 3.x); bodies are simplified. */
#ifndef FUZZ_RUBY_H
#define FUZZ_RUBY_H
#define HAVE_RUBY_THREAD_H 1
#define RUBY_API_VERSION_MAJOR 3
#define RUBY_API_VERSION_MINOR 1
#define NORETURN(x) __attribute__((__noreturn__)) x

typedef unsigned long VALUE;
typedef unsigned long ID;
#include <stddef.h>
typedef void rb_unblock_function_t(void *);
typedef void *rb_blocking_function_t(void *);

#define Qfalse ((VALUE)0)
#define Qtrue ((VALUE)0x14)
#define Qnil ((VALUE)0x08)
#define Qundef ((VALUE)0x34)
#define INT2FIX(i) ((VALUE)(((long)(i)) << 1 | 1))
#define FIX2INT(x) ((int)(((long)(x)) >> 1))
#define LONG2NUM(x) rb_int2inum(x)
#define RTEST(v) (((VALUE)(v) & ~Qnil) != 0)
#define NIL_P(v) ((VALUE)(v) == Qnil)

struct RBasic { VALUE flags; VALUE klass; };
struct RString { struct RBasic basic; long len; char *ptr; };
struct RArray { struct RBasic basic; long len; VALUE *ptr; };
struct RData { struct RBasic basic; void (*dmark)(void *); void (*dfree)(void *); void *data; };
typedef struct rb_data_type_struct { const char *wrap_struct_name; } rb_data_type_t;

#define RBASIC(obj) ((struct RBasic *)(obj))
#define RSTRING(obj) ((struct RString *)(obj))
#define RARRAY(obj) ((struct RArray *)(obj))
#define RDATA(obj) ((struct RData *)(obj))
char *rb_string_value_ptr(volatile VALUE *);
char *rb_string_value_cstr(volatile VALUE *);
VALUE rb_string_value(volatile VALUE *);
static inline char *RSTRING_PTR(VALUE s) { return RSTRING(s)->ptr; }
static inline long RSTRING_LEN(VALUE s) { return RSTRING(s)->len; }
static inline long RARRAY_LEN(VALUE a) { return RARRAY(a)->len; }
static inline const VALUE *RARRAY_CONST_PTR(VALUE a) { return RARRAY(a)->ptr; }
#define RARRAY_AREF(a, i) (RARRAY_CONST_PTR(a)[i])
#define DATA_PTR(obj) (RDATA(obj)->data)
#define RTYPEDDATA_DATA(obj) (RDATA(obj)->data)
#define StringValue(v) rb_string_value(&(v))
#define StringValuePtr(v) rb_string_value_ptr(&(v))
#define StringValueCStr(v) rb_string_value_cstr(&(v))
#define Check_Type(v, t) rb_check_type((VALUE)(v), (t))
#define T_STRING 0x05
#define NUM2INT(x) rb_num2int(x)
#define NUM2LONG(x) rb_num2long(x)
#define RB_GC_GUARD(v) (*rb_gc_guarded_ptr_val(&(v), (v)))
void *rb_check_typeddata(VALUE, const rb_data_type_t *);
#define TypedData_Get_Struct(obj, type, dt, sval) ((sval) = (type *)rb_check_typeddata((obj), (dt)))
#define Data_Get_Struct(obj, type, sval) ((sval) = (type *)DATA_PTR(obj))
#define ALLOCV_N(type, v, n) ((type *)rb_alloc_tmp_buffer(&(v), (long)(n) * (long)sizeof(type)))
#define ALLOCV_END(v) rb_free_tmp_buffer(&(v))
#define RUBY_METHOD_FUNC(f) ((VALUE(*)(void))(f))

extern VALUE rb_cObject, rb_eArgError, rb_eIOError, rb_eRuntimeError;
volatile VALUE *rb_gc_guarded_ptr_val(volatile VALUE *, VALUE);
void rb_check_type(VALUE, int);
int rb_num2int(VALUE);
long rb_num2long(VALUE);
VALUE rb_int2inum(long);
void *rb_alloc_tmp_buffer(volatile VALUE *, long);
void rb_free_tmp_buffer(volatile VALUE *);
NORETURN(void rb_raise(VALUE, const char *, ...));
NORETURN(void rb_sys_fail(const char *));
NORETURN(void rb_exc_raise(VALUE));
NORETURN(void rb_jump_tag(int));
void rb_warn(const char *, ...);
VALUE rb_str_new(const char *, long);
VALUE rb_str_new_cstr(const char *);
VALUE rb_str_buf_new(long);
VALUE rb_str_dup(VALUE);
VALUE rb_str_new_frozen(VALUE);
VALUE rb_str_dup_frozen(VALUE);
VALUE rb_obj_freeze(VALUE);
VALUE rb_str_locktmp(VALUE);
VALUE rb_str_unlocktmp(VALUE);
void rb_str_set_len(VALUE, long);
VALUE rb_str_resize(VALUE, long);
VALUE rb_ary_new(void);
VALUE rb_ary_push(VALUE, VALUE);
VALUE rb_hash_new(void);
VALUE rb_hash_aset(VALUE, VALUE, VALUE);
VALUE rb_funcall(VALUE, ID, int, ...);
ID rb_intern(const char *);
VALUE rb_ivar_get(VALUE, ID);
VALUE rb_ivar_set(VALUE, ID, VALUE);
VALUE rb_yield(VALUE);
VALUE rb_ensure(VALUE (*)(VALUE), VALUE, VALUE (*)(VALUE), VALUE);
VALUE rb_protect(VALUE (*)(VALUE), VALUE, int *);
VALUE rb_rescue(VALUE (*)(VALUE), VALUE, VALUE (*)(VALUE, VALUE), VALUE);
VALUE rb_define_class(const char *, VALUE);
VALUE rb_define_module(const char *);
void rb_define_method(VALUE, const char *, VALUE (*)(void), int);
void rb_define_singleton_method(VALUE, const char *, VALUE (*)(void), int);
void rb_gc_register_address(VALUE *);
int rb_scan_args(int, const VALUE *, const char *, ...);
VALUE rb_data_typed_object_wrap(VALUE, void *, const rb_data_type_t *);
void *ruby_xmalloc(size_t);
void *ruby_xcalloc(size_t, size_t);
void *ruby_xrealloc(void *, size_t);
void ruby_xfree(void *);
#define xmalloc ruby_xmalloc
#define xcalloc ruby_xcalloc
#define xrealloc ruby_xrealloc
#define xfree ruby_xfree
#define ALLOC_N(type, n) ((type *)ruby_xmalloc(sizeof(type) * (n)))
int rb_thread_interrupted(VALUE);
VALUE rb_thread_current(void);
void rb_thread_check_ints(void);
int rb_io_descriptor(VALUE);
#endif
