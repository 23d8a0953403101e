package Kamado::CGI::Mode::Exec;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Kamado::CGI::Env;
use Kamado::CGI::Process::Relay;
use Kamado::CGI::Source;
use Kamado::Log;

use constant NAME => 'exec';

# Mode "exec": the script runs as under Apache's mod_cgi, a new perl per
# request (fork and exec), with real file descriptors (Kamado::CGI::Process::Relay).
# It is the reference the persistent modes are compared with, and the
# mode for what nothing else can run (another interpreter, a program).

# response(SCRIPT, ENV) -> a PSGI streaming response for the psgi env ENV.
# SCRIPT, kept by Kamado::CGI for each script's URL: { script =>
# {filename, dir, nph}, fixed => its fixed CGI variables,
# timeout => --cgi-timeout, redirect => sub (env, path) -> PSGI response }
sub response {
    my ($class, $args, $env) = @_;
    my $script = $args->{script};
    return Kamado::CGI::Process::Relay->response(
        %$args,
        env => $env,
        launch => sub {
            my ($stdin, $out_w, $err_w) = @_;
            my @command = command($script->{filename});
            my $pid = fork // die "Can't fork for $script->{filename}: $!\n";
            return $pid if $pid;
            # the child: CGI's process, fd 0-2 its own, leading a process
            # group so that a stop reaches what it started too
            setpgrp 0, 0;
            chdir $script->{dir} or POSIX::_exit(126);
            # (no body: /dev/null, opened here rather than for every request)
            defined $stdin ? open(STDIN, '<&', $stdin) : open(STDIN, '<', '/dev/null') or POSIX::_exit(126);
            open STDOUT, '>&', $out_w or POSIX::_exit(126);
            open STDERR, '>&', $err_w or POSIX::_exit(126);
            %ENV = Kamado::CGI::Env::request($env, $args->{fixed})->%*;
            Kamado::CGI::Process::Relay::default_signals();
            { exec { $command[0] } @command[1 .. $#command] }
            Kamado::Log->error("$script->{filename}: can't run it: $!");
            POSIX::_exit(127);
        }
    );
}

# How to run a script: (the program, then its argv from argv[0]): perl
# scripts with this perl and the switches of their #! line (-T must be
# given on the command line); other scripts through their own #! line.
# Perl started on a script whose #! names a program without "perl" in its
# name (#!/usr/bin/speedy) runs that program instead, unless perl's own
# argv[0] has no "perl" in it either: it is then the #! program's name.
sub command {
    my ($file) = @_;
    open my $fh, '<', $file or return ($^X, $^X, $file);
    my ($perl, @switches) = Kamado::CGI::Source::shebang(scalar(<$fh>) // '');
    return ($file, $file) unless $perl;
    return ($^X, $perl eq '1' ? $^X : $perl, @switches, $file);
}

1;
__END__

=head1 NAME

Kamado::CGI::Mode::Exec - mode exec: a new process per request, as mod_cgi

=head1 SYNOPSIS

    my $response = Kamado::CGI::Mode::Exec->response($script, $env);

=cut
