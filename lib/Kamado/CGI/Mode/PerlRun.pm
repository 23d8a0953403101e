package Kamado::CGI::Mode::PerlRun;
use 5.024;
use strict;
use warnings;

# (loading it installs the in-process overrides of perl's built-ins)
use Kamado::CGI::InProcess::Run;

use constant NAME => 'perlrun';

# Mode "perlrun": the script runs inside the worker
# (Kamado::CGI::InProcess::Run), as ModPerl::PerlRun runs it.
# response(SCRIPT, ENV) -> a PSGI response; SCRIPT as for
# Kamado::CGI::Mode::Exec, with mode => 'perlrun'. (The runner's own
# sub, not one more call per request: it is given this class, whose
# policy it follows.)
{ no warnings "once"; *response = \&Kamado::CGI::InProcess::Run::respond }
# preload(SCRIPT, ENV): compiled before the workers fork (--preload-cgi)
{ no warnings "once"; *preload = \&Kamado::CGI::InProcess::Run::preload }

# What sets it apart from registry (Kamado::CGI::Mode::Registry):
# the script is compiled for each request and its packages deleted after
# it, so its state ends with the request, PersistentPerl's shutdown
# handlers too (Kamado::CGI::InProcess::Persistent)
use constant keeps_compiled => 0;

# compile_env(FIXED) -> undef: the script compiles in the request's own
# CGI environment, as under CGI (what a compile takes from it serves
# this request only).
sub compile_env { return undef }

1;
__END__

=head1 NAME

Kamado::CGI::Mode::PerlRun - mode perlrun: the script compiled into the worker

=head1 SYNOPSIS

    my $response = Kamado::CGI::Mode::PerlRun->response($script, $env);

=head1 DESCRIPTION

The script is compiled for each request, in that request's CGI
environment, run (L<Kamado::CGI::InProcess::Run>), and its packages
deleted (C<keeps_compiled> is false, C<compile_env> undef): the
in-process mode nearest to plain CGI. L<Kamado::CGI::Mode::Registry> is
the same run with the other policy.

=cut
