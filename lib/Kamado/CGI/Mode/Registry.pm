package Kamado::CGI::Mode::Registry;
use 5.024;
use strict;
use warnings;

use Kamado::CGI::Env;
# (loading it installs the in-process overrides of perl's built-ins)
use Kamado::CGI::InProcess::Run;

use constant NAME => 'registry';

# Mode "registry": the script runs inside the worker
# (Kamado::CGI::InProcess::Run), as ModPerl::Registry runs it.
# response(SCRIPT, ENV) -> a PSGI response; SCRIPT as for
# Kamado::CGI::Mode::Exec, with mode => 'registry'. (The runner's own
# sub, not one more call per request: it is given this class, whose
# policy it follows.)
{ no warnings "once"; *response = \&Kamado::CGI::InProcess::Run::respond }
# preload(SCRIPT, ENV): compiled before the workers fork (--preload-cgi)
{ no warnings "once"; *preload = \&Kamado::CGI::InProcess::Run::preload }

# What sets it apart from perlrun (Kamado::CGI::Mode::PerlRun):
# the compiled script is kept for the requests after it, with its
# package and the PersistentPerl handlers it set (compiled again when it
# or a library it loaded changes; Kamado::CGI::InProcess::Scripts)
use constant keeps_compiled => 1;

# compile_env(FIXED) -> the %ENV the script compiles in: the CGI
# variables no request changes (FIXED, Kamado::CGI::Env::fixed), since
# what BEGIN or `use constant` take from it serves every request after;
# one user's data never stays for the next.
sub compile_env { return { Kamado::CGI::Env::compile_env($_[1]) } }

1;
__END__

=head1 NAME

Kamado::CGI::Mode::Registry - mode registry: the script compiled into the worker

=head1 SYNOPSIS

    my $response = Kamado::CGI::Mode::Registry->response($script, $env);

=head1 DESCRIPTION

The script is compiled once into the worker and kept
(C<keeps_compiled> is true), in the CGI variables no request changes
(C<compile_env>); each request runs it
(L<Kamado::CGI::InProcess::Run>). L<Kamado::CGI::Mode::PerlRun> is
the same run with the other policy.

=cut
