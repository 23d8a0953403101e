# shared-lib/fmt.pl: a jcode.pl-style library WITH its own package line.
package fmt;
sub bracket { return "[" . join("][", @_) . "]"; }
1;
