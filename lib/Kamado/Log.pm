package Kamado::Log;
use 5.024;
use strict;
use warnings;

use POSIX ();
use Time::HiRes ();

# The one way Kamado writes to its error log. Each line names when, how
# bad, which process (its role and pid) and, inside a request, which
# request, so lines from many workers interleaved in one file can be
# told apart and matched with the access log.

my %LEVEL = (error => 0, warn => 1, notice => 2, info => 3, debug => 4);
my $threshold = $LEVEL{info};
my $role = 'supervisor';
our $REQUEST_ID;    # set (with local) while a request is handled

sub levels { sort { $LEVEL{$a} <=> $LEVEL{$b} } keys %LEVEL }

sub set_level {
    my ($class, $name) = @_;
    die "kamado: unknown --log-level '$name' (one of: @{[ levels() ]})\n" unless exists $LEVEL{$name};
    $threshold = $LEVEL{$name};
}

sub set_role { $role = $_[1] }
sub role     { $role }

sub enabled { $LEVEL{ $_[1] } <= $threshold }

sub error  { shift->log(error  => @_) }
sub warn   { shift->log(warn   => @_) }
sub notice { shift->log(notice => @_) }
sub info   { shift->log(info   => @_) }
sub debug  { shift->log(debug  => @_) }

sub log {
    my ($class, $level, @message) = @_;
    return if $LEVEL{$level} > $threshold;
    my $message = join '', @message;
    $message =~ s/\n+\z//;
    my $id = defined $REQUEST_ID ? " [$REQUEST_ID]" : '';
    print STDERR timestamp(), " [$level] $role ", $$, "$id: $message\n";
}

# ISO 8601 local time with milliseconds and the UTC offset.
sub timestamp {
    my ($s, $us) = Time::HiRes::gettimeofday();
    my @t = localtime $s;
    my $z = POSIX::strftime('%z', @t);
    $z =~ s/(\d\d)\z/:$1/;
    return POSIX::strftime('%Y-%m-%dT%H:%M:%S', @t) . sprintf('.%03d', $us / 1000) . $z;
}

1;
__END__

=head1 NAME

Kamado::Log - the error log's lines: time, level, process, request

=head1 SYNOPSIS

    use Kamado::Log;
    Kamado::Log->set_role('worker');
    Kamado::Log->set_level('notice');
    Kamado::Log->warn("can't remove unix socket $path: $!");

    # 2026-11-25T20:41:03.123+00:00 [warn] worker 1234: can't remove ...

=head1 DESCRIPTION

Every part of Kamado logs through this module. A line is

    TIMESTAMP [LEVEL] ROLE PID [REQUEST-ID]: MESSAGE

where the request id appears while C<$Kamado::Log::REQUEST_ID> is set.
Levels, most severe first: C<error>, C<warn>, C<notice>, C<info>,
C<debug>; lines less severe than the level set are dropped. Lines go to
STDERR, which C<--error-log> points at a file.

=cut
