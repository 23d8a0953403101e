package Kamado::Test::Load;
use 5.024;
use strict;
use warnings;

# A bounded load for the restart and crash tests: client processes that
# send GET requests one after another until told to stop (or for at most
# 60 s, 20,000 requests each), on a new connection each time or on
# keep-alive connections (reconnecting when the server says
# Connection: close, as any HTTP client does). Every outcome is counted: a
# status, or an error (refused, reset, closed before a whole response,
# no answer within 10 s).

use File::Temp ();
use POSIX ();
use Test::More ();
use Time::HiRes ();
use Kamado::Test qw(read_response);

use constant { MAX_SECONDS => 60, MAX_REQUESTS => 20_000 };

# start(server, clients => N, keepalive => 0|1, path => '/'); server is a
# Kamado::Test server, or a code reference returning a connected socket.
sub start {
    my ($class, $server, %opt) = @_;
    my $dir = File::Temp::tempdir(CLEANUP => 1);
    my @pids;
    for my $n (1 .. $opt{clients} // 2) {
        my $pid = fork // die "Can't fork: $!";
        if (!$pid) {
            _client($server, "$dir/client$n", $opt{keepalive}, $opt{path} // '/');
            POSIX::_exit(0);
        }
        push @pids, $pid;
    }
    my $self = bless { dir => $dir, pids => \@pids }, $class;
    $self->wait_for_requests(1);
    return $self;
}

sub _client {
    my ($server, $file, $keepalive, $path) = @_;
    my $stop = 0;
    $SIG{TERM} = sub { $stop = 1 };
    my (%count, @errors, $c, $carry);
    my $deadline = Time::HiRes::time() + MAX_SECONDS;
    my $done = 0;
    my $save = sub {
        open my $fh, '>', "$file.tmp" or die;
        print $fh "$_ $count{$_}\n" for sort keys %count;
        print $fh "error $_\n" for @errors;
        close $fh;
        rename "$file.tmp", $file;
    };
    while (!$stop && $done < MAX_REQUESTS && Time::HiRes::time() < $deadline) {
        if (!$c) {
            $c = eval { ref $server eq 'CODE' ? $server->() : $server->connect };
            if (!$c) {
                last if $stop;                # interrupted by the stop itself
                push @errors, "connect: $!";
                next;
            }
            $carry = '';
        }
        my $request = "GET $path HTTP/1.1\r\nHost: x\r\n" . ($keepalive ? '' : "Connection: close\r\n") . "\r\n";
        my $res;
        if (syswrite($c, $request)) {
            $res = read_response($c, buffer => \$carry, timeout => 10);
        }
        $done++;
        if (!$res) {
            last if $stop;
            push @errors, "request $done: no complete response ($!)";
            undef $c;
            next;
        }
        $count{ $res->{status} }++;
        undef $c if !$keepalive || ($res->{headers}{connection} // '') =~ /close/i;
        $save->() if $done % 100 == 0;
    }
    $save->();
}

# Waits until every client has finished at least $n requests (they save
# their counts every 100); true when they did within 20 s.
sub wait_for_requests {
    my ($self, $n) = @_;
    my $deadline = Time::HiRes::time() + 20;
    while (Time::HiRes::time() < $deadline) {
        my @totals = map { my $r = $self->_read($_); $r->{total} } 1 .. $self->{pids}->@*;
        return 1 unless grep { $_ < $n } @totals;
        Time::HiRes::sleep(0.05);
    }
    return 0;
}

# Stops the clients; returns { total, status => { code => count }, errors => [...] }.
sub stop {
    my ($self) = @_;
    kill TERM => $self->{pids}->@*;
    waitpid $_, 0 for $self->{pids}->@*;
    my %sum = (total => 0, status => {}, errors => []);
    for my $n (1 .. $self->{pids}->@*) {
        my $r = $self->_read($n);
        $sum{total} += $r->{total};
        $sum{status}{$_} += $r->{status}{$_} for keys $r->{status}->%*;
        push $sum{errors}->@*, $r->{errors}->@*;
    }
    return \%sum;
}

# Stops the clients and tests what they saw: at least $min requests (default
# 1), no connection error, no status but 200.
sub stop_ok {
    my ($self, $name, $min) = @_;
    my $r = $self->stop;
    Test::More::cmp_ok($r->{total}, '>=', $min // 1, "$name: $r->{total} requests");
    Test::More::is_deeply($r->{errors}, [], "$name: no connection errors");
    Test::More::is_deeply([keys $r->{status}->%*], ['200'], "$name: every answer was 200");
    return $r;
}

sub _read {
    my ($self, $n) = @_;
    my %r = (total => 0, status => {}, errors => []);
    open my $fh, '<', "$self->{dir}/client$n" or return \%r;
    while (<$fh>) {
        chomp;
        if (/^error (.*)/) {
            push $r{errors}->@*, $1;
            $r{total}++;
        } elsif (/^(\d+) (\d+)$/) {
            $r{status}{$1} = $2;
            $r{total} += $2;
        }
    }
    return \%r;
}

1;
