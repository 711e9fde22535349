%w[a b
%w(
have_func("a