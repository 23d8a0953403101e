package Kamado::Test::Streams;
use strict;
use warnings;

# Many streams at once against an async worker, and what they cost it:
#
#   my $bodies = burst(port => $port, n => 300, started => qr/data: start/,
#                      on_started => sub { $peak = private_kib($pid) });

use AnyEvent;
use AnyEvent::Handle;
use Exporter 'import';

our @EXPORT_OK = qw(burst private_kib);

# A process's private memory (Private_Clean + Private_Dirty), in KiB.
sub private_kib {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/smaps_rollup" or return;
    my $kib = 0;
    /^Private_(?:Clean|Dirty):\s+(\d+)/ and $kib += $1 while <$fh>;
    return $kib;
}

# Opens n streams (GET /s, Connection: close) to 127.0.0.1:port at once;
# once every one has sent something matching started, on_started is
# called, once. Returns { stream number => what it received } when all
# have ended.
sub burst {
    my (%a) = @_;
    my $cv = AE::cv;
    my (%got, $all);
    for my $i (1 .. $a{n}) {
        $cv->begin;
        my $h;
        $h = AnyEvent::Handle->new(
            connect  => ['127.0.0.1', $a{port}],
            timeout  => 60,
            on_error => sub { undef $h; $cv->end },
            on_eof   => sub { undef $h; $cv->end },
            on_read  => sub {
                $got{$i} .= delete $_[0]{rbuf};
                return if $all || $a{n} != grep { $_ =~ $a{started} } values %got;
                $all = 1;
                $a{on_started}->();
            },
        );
        $h->push_write("GET /s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }
    $cv->recv;
    return \%got;
}

1;
