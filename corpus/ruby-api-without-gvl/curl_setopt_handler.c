/* libcurl runs the callbacks given to curl_easy_setopt (CURLOPT_READFUNCTION,
 * CURLOPT_WRITEFUNCTION ...) inside curl_multi_perform and curl_easy_perform.
 * When the perform runs in a GVL-free callback, a handler that unwraps the
 * Ruby object it was given as user data does so without the GVL; a handler
 * that only copies bytes is fine. The library is declared here. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

typedef void CURL;
typedef void CURLM;
typedef int CURLoption;
typedef int CURLMcode;
#define CURLOPT_WRITEFUNCTION 20011
#define CURLOPT_READFUNCTION 20012
#define CURLOPT_WRITEDATA 10001
#define CURLOPT_READDATA 10009
int curl_easy_setopt(CURL *h, CURLoption opt, ...);
CURLMcode curl_multi_perform(CURLM *m, int *running);
CURLMcode curl_multi_add_handle(CURLM *m, CURL *h);
CURL *curl_easy_init(void);

struct transfer {
	char buf[4096];
	size_t len;
	int cancelled;
};

static void transfer_free(void *p)
{
	xfree(p);
}

static const rb_data_type_t transfer_type = {
    "transfer", {NULL, transfer_free, NULL}, NULL, NULL, RUBY_TYPED_FREE_IMMEDIATELY};

/* Unwraps the Ruby object: rb_check_typeddata without the GVL. */
static size_t on_read(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct transfer *t;
	TypedData_Get_Struct((VALUE)userdata, struct transfer, &transfer_type, t); /* expect: ruby-api-without-gvl */
	if (t->cancelled)
		return 0;
	size_t n = size * nmemb < t->len ? size * nmemb : t->len;
	memcpy(ptr, t->buf, n);
	return n;
}

/* Only C memory: fine without the GVL. */
static size_t on_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct transfer *t = userdata;
	size_t n = size * nmemb;
	if (n > sizeof(t->buf) - t->len)
		n = sizeof(t->buf) - t->len;
	memcpy(t->buf + t->len, ptr, n);
	t->len += n;
	return size * nmemb;
}

struct perform {
	CURLM *multi;
	int running;
	CURLMcode rc;
};

static void *perform_nogvl(void *p)
{
	struct perform *pf = p;
	pf->rc = curl_multi_perform(pf->multi, &pf->running);
	return NULL;
}

VALUE client_submit(VALUE self, VALUE upload, VALUE download)
{
	CURLM *multi = (CURLM *)NUM2PTR(self);
	CURL *h = curl_easy_init();
	curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
	curl_easy_setopt(h, CURLOPT_READDATA, (void *)upload);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, DATA_PTR(download));
	curl_multi_add_handle(multi, h);
	return self;
}

VALUE client_wait(VALUE self)
{
	struct perform pf = {(CURLM *)NUM2PTR(self), 0, 0};
	rb_thread_call_without_gvl(perform_nogvl, &pf, RUBY_UBF_IO, NULL);
	return INT2NUM(pf.running);
}
