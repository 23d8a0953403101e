package Kamado::Test::Plackup;
use 5.024;
use strict;
use warnings;

# plackup -s Kamado started the way people start it: the real plackup
# script, told where to listen by its own options (--port, --host,
# --listen, --socket), not handed a socket. Ports come from free_port: the
# kernel's choice of a free loopback port, released just before plackup
# binds it (another process taking it in between fails the test loudly,
# with plackup's "Can't listen" in the log).

use Exporter 'import';
use IO::Socket::IP;
use Test::More ();
use Kamado::Test qw(start_server);
use Kamado::Test::CLI qw(run_kamado);

our @EXPORT_OK = qw(plackup free_port start_plackup run_plackup);

my $PLACKUP;

# The plackup script in PATH; skips the whole test file without one.
sub plackup {
    return $PLACKUP if $PLACKUP;
    for my $dir (split /:/, $ENV{PATH} // '') {
        return $PLACKUP = "$dir/plackup" if -f "$dir/plackup";
    }
    Test::More::plan(skip_all => 'plackup is not in PATH');
}

# A port nothing listens on, never one this test was given before: the
# kernel may hand the same ephemeral port to two binds in a row once the
# first socket is closed, and a test that asks twice wants two ports.
my %GIVEN;

sub free_port {
    for (1 .. 100) {
        my $sock = IO::Socket::IP->new(LocalHost => '127.0.0.1', LocalPort => 0, Listen => 1, ReuseAddr => 1)
            or die "Can't find a free port: $@";
        my $port = $sock->sockport;
        return $port unless $GIVEN{$port}++;
    }
    die "Can't find a free port not given before\n";
}

# start_plackup(args => [...], port => N or unix => PATH, app => SOURCE,
# workers => N): a Kamado::Test server object; PLACK_ENV is not inherited
# from the test's environment (it would override -E).
sub start_plackup {
    my (%opt) = @_;
    local $ENV{PLACK_ENV};
    delete $ENV{PLACK_ENV};
    return start_server(%opt, self_bind => 1, command => [plackup(), '-s', 'Kamado']);
}

# run_plackup(@args): runs plackup -s Kamado to its end; as run_kamado.
sub run_plackup {
    my (@args) = @_;
    my %opt = ref $args[0] eq 'HASH' ? %{ shift @args } : ();
    local $ENV{PLACK_ENV};
    delete $ENV{PLACK_ENV};
    return run_kamado({ %opt, command => [plackup(), '-s', 'Kamado'] }, @args);
}

1;
