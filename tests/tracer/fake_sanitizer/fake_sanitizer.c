/* A module named as the Compute Sanitizer API's (libsanitizer-public.so),
 * whose frames lie between CUDA's and the tracer's under --precise: the
 * library_modules tests take a return address inside it. */
void fake_sanitizer_dispatch(void) {}
