package Kamado::CGI::Zygote;
use 5.024;
use strict;
use warnings;

use IO::FDPass;
use POSIX ();

# Mode "fork", the process side: loaded with -M by a perl that runs a CGI
# script as its main program,
#
#     perl [the script's #! switches] -MKamado::CGI::Zygote=FD script.cgi
#
# so perl itself compiles the script exactly as under CGI (package main,
# __END__ and DATA, #! switches, named subs seeing file-scoped lexicals).
# Then, instead of running it, the INIT block below serves requests from
# the worker on socket FD: for each, it forks, and the child returns from
# INIT into the compiled main program with the request's STDIN, STDOUT,
# STDERR and %ENV, runs it once and exits, as a CGI process would.
# Nothing a request does (globals, exit, END blocks, %SIG, alarm, cwd,
# umask, open handles) outlives it.

my $socket_fd;

sub import {
    my ($class, $fd) = @_;
    $socket_fd = $fd;
}

INIT { _serve() if defined $socket_fd }

sub _serve {
    open my $sock, '+<&=', $socket_fd or die "Kamado::CGI::Zygote: fd $socket_fd: $!\n";
    my $data = _data_handles();
    local $SIG{CHLD} = 'IGNORE';    # children are reaped by the kernel
    # compiled: say so, with the private libraries the script loaded, so
    # that the worker compiles it again when one of them changes
    syswrite $sock, join("\t", 'ready', _private_files()) . "\n";
    while (1) {
        # a request: three descriptors, then the environment
        my @fds = map { IO::FDPass::recv($socket_fd) } 1 .. 3;
        last if grep { $_ < 0 } @fds;
        my $env = _read_env($sock) // last;
        my $pid = fork;
        if (!defined $pid) {
            POSIX::close($_) for @fds;
            syswrite $sock, "0\n";
            next;
        }
        if ($pid) {
            POSIX::close($_) for @fds;
            syswrite $sock, "$pid\n";
            next;
        }
        # the child: becomes the CGI process (leading a process group, so
        # that a stop reaches what it starts too)
        close $sock;
        setpgrp 0, 0;
        POSIX::dup2($fds[$_], $_) for 0 .. 2;
        POSIX::close($_) for grep { $_ > 2 } @fds;
        %ENV = %$env;
        $SIG{$_} = 'DEFAULT' for grep { $_ ne '__DIE__' && $_ ne '__WARN__' } keys %SIG;
        srand;                                  # not the zygote's sequence
        $^T = time;
        _reopen_data($data);
        return;                                 # into the main program
    }
    POSIX::_exit(0);
}

# Files the script required or did that are not modules from @INC: its
# own libraries (./lib.pl, cgi-lib.pl beside it, its lib/ directory).
sub _private_files {
    require Cwd;
    require File::Spec;
    my $dir = Cwd::getcwd();
    my @files;
    for my $key (sort keys %INC) {
        my $path = $INC{$key} // next;
        next if ref $path;
        $path = File::Spec->rel2abs($path, $dir);
        next if $key =~ /\.pm\z/ && index($path, "$dir/") != 0;    # a module from @INC
        next if $key =~ m{\AKamado/};
        push @files, $path if -f $path;
    }
    return @files;
}

# "NAME=VALUE\0..." after its length and a newline
sub _read_env {
    my ($sock) = @_;
    my $line = '';
    while ($line !~ /\n\z/) {
        sysread($sock, my $c, 1) or return undef;
        $line .= $c;
    }
    my $want = $line + 0;
    my $buf = '';
    while (length $buf < $want) {
        sysread($sock, $buf, $want - length $buf, length $buf) or return undef;
    }
    return { map { split /=/, $_, 2 } grep { length } split /\0/, $buf };
}

# DATA handles (of main, or of the package before __DATA__) share their
# file offset with every fork: each child reopens the script and seeks to
# where the data starts, so every request reads all of it.
sub _data_handles {
    my @found;
    no strict 'refs';
    my %seen;
    for my $pkg ('main', grep { s/::\z// } keys %main::) {
        next if $seen{$pkg}++;
        my $io = *{"${pkg}::DATA"}{IO} or next;
        defined fileno $io or next;
        push @found, [$pkg, tell $io, join '', map { ":$_" } PerlIO::get_layers($io)];
    }
    return \@found;
}

sub _reopen_data {
    my ($data) = @_;
    no strict 'refs';
    for (@$data) {
        my ($pkg, $offset, $layers) = @$_;
        open my $fh, "<$layers", $0 or next;
        seek $fh, $offset, 0;
        # (by name: the stash's own glob, the one the script's code reads)
        *{"${pkg}::DATA"} = $fh;
    }
}

1;
__END__

=head1 NAME

Kamado::CGI::Zygote - a CGI script compiled once, run in a fork per request

=cut
