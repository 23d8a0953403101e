package Kamado::CGI::Preload;
use 5.024;
use strict;
use warnings;

use File::Find ();
use Kamado::Log;

# --preload-cgi: every script of a CGI directory made ready before the
# workers fork, each as its mode keeps it warm (the modes' preload): in
# registry mode compiled into the generation, which the workers then share
# copy-on-write, so that no worker compiles it on its first request; in
# perlrun mode compiled once and let go (the modules it uses stay loaded);
# in fork mode each worker starts its zygote before it accepts; exec mode
# has nothing to keep. A script that does not compile is logged, and
# answers 500 as it would have; scripts added later are compiled when they
# are first asked for, as without this.

# run(CGI, PREFIX) -> { mode name => scripts made ready, failed => count,
# 'left for later' => count (past what a mode keeps) }:
# CGI is a Kamado::CGI mounted at PREFIX ('' for /).
sub run {
    my ($class, $cgi, $prefix) = @_;
    my %count = (failed => 0);
    for my $path (paths($cgi->{root})) {
        my $env = request_env($prefix, $path);
        my $entry = $cgi->entry($env) or next;
        if ($entry->{error}) {
            Kamado::Log->error($entry->{error});
            $count{failed}++;
            next;
        }
        my $mode = $entry->{mode};
        next unless $mode->can('preload');
        my $done = $mode->preload($entry->{args}, $env);
        $count{ !defined $done ? 'left for later' : $done ? $mode->NAME : 'failed' }++;
    }
    return \%count;
}

# The URL paths (from the root, with a leading slash) of the files under
# DIR, sorted, not looking into or at names starting with a dot (the
# mapping refuses them) nor following links to directories.
sub paths {
    my ($dir) = @_;
    my @paths;
    File::Find::find({
        no_chdir   => 1,
        preprocess => sub { sort grep { !/\A\./ } @_ },
        wanted     => sub { push @paths, substr($_, length $dir) if -f $_ },
    }, $dir);
    return @paths;
}

# The PSGI env of a GET of PATH from the loopback, for what a script's
# compile sees of the CGI environment.
sub request_env {
    my ($prefix, $path) = @_;
    return {
        REQUEST_METHOD => 'GET', SCRIPT_NAME => $prefix, PATH_INFO => $path, REQUEST_URI => "$prefix$path",
        QUERY_STRING => '', SERVER_PROTOCOL => 'HTTP/1.1', SERVER_NAME => 'localhost', SERVER_PORT => 80,
        REMOTE_ADDR => '127.0.0.1', REMOTE_PORT => 0, 'psgi.url_scheme' => 'http',
    };
}

1;
__END__

=head1 NAME

Kamado::CGI::Preload - a CGI directory's scripts compiled before the workers fork (--preload-cgi)

=head1 SYNOPSIS

    my $count = Kamado::CGI::Preload->run($cgi, '/cgi-bin');

=cut
