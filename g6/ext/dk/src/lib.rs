use rb_sys::*;
// rb_nogvl in a comment is not counted
unsafe fn run(p: *mut c_void) {
    rb_thread_call_without_gvl(Some(work), p, None, std::ptr::null_mut());
    let flags = RB_NOGVL_OFFLOAD_SAFE;
    let s = "rb_nogvl in a string";
}
