/* A reader that waits for a native lock a producer thread holds while it
 * fills a shared frame, then copies the frame out under the lock. Taking a
 * lock another thread may hold for long is the wait the release is for: not
 * small work, although Ruby allows rb_nativethread_lock_lock without the GVL
 * (pthread_mutex_lock underneath): judged as the pthread_mutex_lock version is,
 * an offload candidate (the lock is taken and given back on the same thread). */
#include <ruby.h>
#include <ruby/thread.h>
#include <ruby/thread_native.h>
#include <string.h>

struct frame {
	rb_nativethread_lock_t lock;
	unsigned char pixels[64];
};

static struct frame latest;

struct grab {
	unsigned char out[64];
};

static void *grab_nogvl(void *p)
{
	struct grab *g = p;
	rb_nativethread_lock_lock(&latest.lock);
	memcpy(g->out, latest.pixels, sizeof(g->out));
	rb_nativethread_lock_unlock(&latest.lock);
	return NULL;
}

VALUE frame_grab(VALUE self)
{
	struct grab g;
	rb_thread_call_without_gvl(grab_nogvl, &g, NULL, NULL); /* expect: offload-candidate */
	return rb_str_new((const char *)g.out, sizeof(g.out));
}
