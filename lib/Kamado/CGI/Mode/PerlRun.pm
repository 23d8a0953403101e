package Kamado::CGI::Mode::PerlRun;
use 5.024;
use strict;
use warnings;

# (loading it installs the in-process overrides of perl's built-ins)
use Kamado::CGI::InProcess::Run;

use constant NAME => 'perlrun';

# Mode "perlrun": the script runs inside the worker (Kamado::CGI::InProcess::Run).
# response(SCRIPT, ENV) -> a PSGI response; SCRIPT as for
# Kamado::CGI::Mode::Exec, with mode => 'perlrun'. (The runner's own sub, not
# one more call per request.)
{ no warnings "once"; *response = \&Kamado::CGI::InProcess::Run::respond }
# preload(SCRIPT, ENV): compiled before the workers fork (--preload-cgi)
{ no warnings "once"; *preload = \&Kamado::CGI::InProcess::Run::preload }

1;
__END__

=head1 NAME

Kamado::CGI::Mode::PerlRun - mode perlrun: the script compiled into the worker

=head1 SYNOPSIS

    my $response = Kamado::CGI::Mode::PerlRun->response($script, $env);

=cut
