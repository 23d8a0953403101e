package Kamado::CGI::FCGIRequest;
use 5.024;
use strict;
use warnings;

# The FCGI request a CGI::Fast script gets when it runs in the worker
# (registry, perlrun). Run as a CGI script, `while (my $q =
# CGI::Fast->new) { ... }` goes round once: FCGI, in CGI mode, accepts
# once per process (a flag of its own, in C, that nothing resets). The
# worker is one process for many runs, so each run gets this request
# instead ($CGI::Fast::Ext_Request, which CGI::Fast makes only when it
# has none): it accepts once, then says there is no more.

sub new { bless { accepted => 0 }, $_[0] }

# 0 the first time (the request is this run's), -1 after: the loop ends.
sub Accept { $_[0]{accepted}++ ? -1 : 0 }

sub IsFastCGI      { 0 }
sub GetEnvironment { \%ENV }
sub GetHandles     { (\*STDIN, \*STDOUT, \*STDERR) }
sub Finish         { }
sub Flush          { }
sub Detach         { }
sub Attach         { }
sub LastCall       { $_[0]{accepted} = 1 }

1;
__END__

=head1 NAME

Kamado::CGI::FCGIRequest - the FCGI request of a CGI::Fast script run in the worker: one accept per run

=cut
